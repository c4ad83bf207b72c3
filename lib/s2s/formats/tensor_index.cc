#include "s2s/formats/tensor_index.h"

#include <limits>
#include <utility>

#include "s2s/core/error.h"
#include "s2s/core/strings.h"
#include "s2s/core/tensor.h"

namespace s2s::formats {

namespace {

std::size_t common_prefix(const std::string& a, const std::string& b) {
  std::size_t n = 0;
  while (n < a.size() && n < b.size() && a[n] == b[n]) ++n;
  return n;
}

// The names that share the longest prefix with `wanted` (none when no name shares a character):
// a misspelled layer or a wrong naming scheme shows at a glance.
std::vector<std::string> closest(const std::vector<std::string>& names, const std::string& wanted) {
  std::size_t longest = 1;
  std::vector<std::string> out;
  for (const std::string& name : names) {
    const std::size_t shared = common_prefix(name, wanted);
    if (shared < longest) continue;
    if (shared > longest) out.clear();
    longest = shared;
    out.push_back(name);
  }
  return out;
}

}  // namespace

std::optional<std::uint64_t> tensor_bytes(const std::vector<std::uint64_t>& dims,
                                          std::uint64_t item_size) {
  std::uint64_t numel = 1, nonzero = 1;
  bool overflow = false;
  for (const std::uint64_t dim : dims) {
    overflow |= __builtin_mul_overflow(numel, dim, &numel);
    if (dim != 0) overflow |= __builtin_mul_overflow(nonzero, dim, &nonzero);
  }
  std::uint64_t bytes = 0;
  overflow |= nonzero > static_cast<std::uint64_t>(std::numeric_limits<dim_t>::max()) ||
              __builtin_mul_overflow(numel, item_size, &bytes);
  if (overflow) return std::nullopt;
  return bytes;
}

TensorIndex::TensorIndex(std::string path, std::string noun, std::string nouns)
    : path_(std::move(path)), noun_(std::move(noun)), nouns_(std::move(nouns)) {}

std::size_t TensorIndex::add(std::string name, const std::string& kind) {
  const std::size_t at = names_.size();
  if (!positions_.emplace(name, at).second) fail(kind + " '" + name + "' appears twice");
  names_.push_back(std::move(name));
  return at;
}

std::size_t TensorIndex::position(const std::string& name) const {
  const auto it = positions_.find(name);
  if (it != positions_.end()) return it->second;
  std::string message = "no " + noun_ + " '" + name + "' (the file has " +
                        std::to_string(names_.size()) + " " + nouns_;
  const std::vector<std::string> near = closest(names_, name);
  if (!near.empty()) message += "; closest: " + join(near, ", ", 4);
  fail(message + ")");
}

void TensorIndex::fail(const std::string& message) const {
  throw ModelError(path_ + ": " + message);
}

}  // namespace s2s::formats
