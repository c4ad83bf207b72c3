// CTranslate2 model.bin reading: map the file, walk the records with a cursor that checks every
// length against the bytes left, resolve aliases, and copy (and widen) variables on request.
#include "s2s/formats/ct2_model.h"


#include <cerrno>
#include <cstring>
#include <limits>
#include <unordered_set>

#include "s2s/core/bfloat16.h"
#include "s2s/formats/npy.h"

namespace s2s::formats {

static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__,
              "the CTranslate2 reader copies little-endian data as it is");

namespace {

constexpr std::uint32_t kMaxVersion = 6;
constexpr std::uint64_t kMaxRank = 8;

// CTranslate2's DataType ids (include/ctranslate2/types.h, model_spec.py _dtype_to_type_id).
enum : std::uint8_t { kF32, kI8, kI16, kI32, kF16, kBF16, kTypeCount };
constexpr const char* kTypeNames[] = {"float32", "int8", "int16", "int32", "float16", "bfloat16"};
constexpr std::uint64_t kTypeSizes[] = {4, 1, 2, 4, 2, 2};

// Reads little-endian fields in order; every read is checked against the bytes left.
class Cursor {
 public:
  Cursor(const std::uint8_t* data, std::uint64_t size, const std::string& path)
      : data_(data), size_(size), path_(path) {}

  std::uint64_t pos() const { return pos_; }
  std::uint64_t left() const { return size_ - pos_; }
  [[noreturn]] void fail(const std::string& message) const {
    throw ModelError(path_ + ": " + message);
  }
  std::uint64_t uint(std::uint64_t bytes, const std::string& what) {
    if (bytes > left())
      fail("truncated: " + what + " at byte " + std::to_string(pos_) + " needs " +
           std::to_string(bytes) + " bytes, " + std::to_string(left()) + " left");
    std::uint64_t v = 0;
    for (std::uint64_t i = 0; i < bytes; ++i)
      v |= static_cast<std::uint64_t>(data_[pos_ + i]) << (8 * i);
    pos_ += bytes;
    return v;
  }
  // u16 (length + 1), bytes, NUL. Like CTranslate2's consume<std::string>, the text ends at the
  // first NUL; a record that does not end in one is corrupt.
  std::string string(const std::string& what) {
    const std::uint64_t len = uint(2, what + " length");
    if (len == 0)
      fail(what + ": string length 0 at byte " + std::to_string(pos_ - 2) +
           " (the length counts the NUL, so it is at least 1)");
    if (len > left())
      fail("truncated: " + what + ": " + std::to_string(len) + " bytes claimed, " +
           std::to_string(left()) + " left");
    const char* p = reinterpret_cast<const char*>(data_ + pos_);
    if (p[len - 1] != '\0')
      fail(what + ": string at byte " + std::to_string(pos_) + " does not end in a NUL");
    pos_ += len;
    return std::string(p, strnlen(p, len));
  }
  void skip(std::uint64_t bytes) { pos_ += bytes; }  // the caller has checked left()

 private:
  const std::uint8_t* data_;
  std::uint64_t size_;
  const std::string& path_;
  std::uint64_t pos_ = 0;
};

float float_at(std::uint8_t type, const std::uint8_t* data, std::size_t i) {
  float f;
  if (type == kF32) {
    std::memcpy(&f, data + 4 * i, 4);  // the data may be unaligned
    return f;
  }
  std::uint16_t h;
  std::memcpy(&h, data + 2 * i, 2);
  return type == kF16 ? half_to_float(h) : bf16_to_float(h);
}

std::int64_t int_at(std::uint8_t type, const std::uint8_t* data, std::size_t i) {
  if (type == kI8) return static_cast<std::int8_t>(data[i]);
  if (type == kI16) {
    std::int16_t v;
    std::memcpy(&v, data + 2 * i, 2);
    return v;
  }
  std::int32_t v;
  std::memcpy(&v, data + 4 * i, 4);
  return v;
}

bool is_integer(std::uint8_t type) { return type == kI8 || type == kI16 || type == kI32; }

// One variable record as the file holds it (the data itself is skipped).
struct VariableRecord {
  std::string name;
  Shape shape;
  std::uint8_t type = 0;  // CTranslate2 dtype id
  std::uint64_t offset = 0;
  std::uint64_t nbytes = 0;
};

// The element type and the byte count of a variable, as binary version `version` stores them.
std::uint64_t read_type_and_size(Cursor& in, std::uint32_t version, const std::string& what,
                                 std::uint8_t& type) {
  if (version >= 4) {
    const std::uint64_t id = in.uint(1, what + " dtype");
    if (id >= kTypeCount)
      in.fail(what + ": unknown dtype id " + std::to_string(id) +
              " (0 float32, 1 int8, 2 int16, 3 int32, 4 float16, 5 bfloat16)");
    type = static_cast<std::uint8_t>(id);
    return in.uint(4, what + " byte count");
  }
  // Versions <= 3 store the item size and the element count; CTranslate2 maps the size to a
  // type (model.cc get_dtype_from_item_size).
  const std::uint64_t item = in.uint(1, what + " item size");
  if (item != 4 && item != 2 && item != 1)
    in.fail(what + ": item size " + std::to_string(item) + " (expected 4, 2 or 1)");
  type = item == 4 ? kF32 : item == 2 ? kI16 : kI8;
  return in.uint(4, what + " element count") * item;
}

VariableRecord read_variable(Cursor& in, std::uint32_t version, std::uint64_t i) {
  VariableRecord v;
  v.name = in.string("name of variable " + std::to_string(i));
  const std::string what = "variable '" + v.name + "'";
  const std::uint64_t rank = in.uint(1, what + " rank");
  if (rank > kMaxRank)
    in.fail(what + ": rank " + std::to_string(rank) + " (at most 8 is accepted)");
  std::vector<std::uint64_t> dims;
  for (std::uint64_t r = 0; r < rank; ++r) {
    dims.push_back(in.uint(4, what + " dimension"));
    v.shape.push_back(static_cast<dim_t>(dims.back()));
  }
  v.nbytes = read_type_and_size(in, version, what, v.type);
  if (v.nbytes > in.left())
    in.fail(what + ": " + std::to_string(v.nbytes) + " bytes claimed, " +
            std::to_string(in.left()) + " left");
  const std::optional<std::uint64_t> expected = tensor_bytes(dims, kTypeSizes[v.type]);
  if (!expected) in.fail(what + ": shape " + to_string(v.shape) + " is too large");
  if (*expected != v.nbytes)
    in.fail(what + ": shape " + to_string(v.shape) + " of " + kTypeNames[v.type] + " needs " +
            std::to_string(*expected) + " bytes, the file gives " + std::to_string(v.nbytes));
  v.offset = in.pos();
  in.skip(v.nbytes);
  return v;
}

// The (alias, target) pairs of binary versions >= 3.
std::vector<std::pair<std::string, std::string>> read_aliases(Cursor& in, std::uint32_t version) {
  std::vector<std::pair<std::string, std::string>> aliases;
  if (version < 3) return aliases;
  const std::uint64_t n_aliases = in.uint(4, "alias count");
  for (std::uint64_t i = 0; i < n_aliases; ++i) {
    std::string alias = in.string("name of alias " + std::to_string(i));
    std::string target = in.string("target of alias '" + alias + "'");
    aliases.emplace_back(std::move(alias), std::move(target));
  }
  return aliases;
}

}  // namespace

Ct2ModelFile::Ct2ModelFile(const std::string& path)
    : TensorIndex(path, "variable or alias", "variables and aliases"), file_(path) {
  parse();
}

void Ct2ModelFile::parse() {
  Cursor in(file_.data(), file_.size(), path());
  if (file_.size() == 0) in.fail("empty file (0 bytes), not a CTranslate2 model.bin");
  version_ = static_cast<std::uint32_t>(in.uint(4, "binary version"));
  if (version_ < 1 || version_ > kMaxVersion)
    in.fail("unsupported CTranslate2 binary version " + std::to_string(version_) +
            " (supported: 1 to " + std::to_string(kMaxVersion) + ")" +
            (version_ > kMaxVersion ? "; written by a newer CTranslate2, or not a model.bin"
                                    : "; not a model.bin"));
  if (version_ >= 2) {
    spec_name_ = in.string("spec name");
    revision_ = static_cast<std::uint32_t>(in.uint(4, "spec revision"));
  }
  // No reserve(): the counts are not trusted, and each record fails on its own if truncated.
  const std::uint64_t n_vars = in.uint(4, "variable count");
  for (std::uint64_t i = 0; i < n_vars; ++i) {
    VariableRecord v = read_variable(in, version_, i);
    add(std::move(v.name), "variable");
    variables_.push_back(Variable{std::move(v.shape), v.type, v.offset, v.nbytes});
  }
  const auto aliases = read_aliases(in, version_);
  // The writer leaves nothing after the last record; extra bytes mean a wrong count.
  if (in.left() != 0)
    in.fail(std::to_string(in.left()) + " unexpected bytes after the last record, at byte " +
            std::to_string(in.pos()));
  resolve_aliases(aliases);
}

void Ct2ModelFile::resolve_aliases(
    const std::vector<std::pair<std::string, std::string>>& aliases) {
  std::unordered_map<std::string, std::string> direct;
  std::vector<std::string> order;
  for (const auto& [alias, target] : aliases) {
    if (contains(alias)) fail("alias '" + alias + "' has the name of a variable");
    if (!direct.emplace(alias, target).second) fail("alias '" + alias + "' appears twice");
    order.push_back(alias);
  }
  // Follow each chain until a variable or an alias already resolved; every alias is walked once,
  // so a long chain in a corrupt file costs linear time.
  std::unordered_map<std::string, std::string> resolved;  // alias -> variable
  for (const std::string& start : order) {
    std::vector<std::string> chain;
    std::unordered_set<std::string> on_chain;
    std::string target = start;
    while (!contains(target)) {
      const auto done = resolved.find(target);
      if (done != resolved.end()) {
        target = done->second;
        break;
      }
      const auto next = direct.find(target);
      if (next == direct.end())
        fail("alias '" + chain.back() + "' points to '" + target +
             "', which is neither a variable nor an alias");
      if (!on_chain.insert(target).second) fail("alias '" + target + "' is part of a cycle");
      chain.push_back(target);
      target = next->second;
    }
    for (const std::string& alias : chain) resolved[alias] = target;
  }
  for (const std::string& alias : order) {
    add(alias, "alias");
    alias_targets_.push_back(position(resolved.at(alias)));
  }
  // Model::load also aliases "<alias>_scale" to "<target>_scale" (the weight's quantisation scale).
  for (const std::string& alias : order) {
    const std::string scale = alias + "_scale";
    const std::string target = resolved.at(alias) + "_scale";
    if (contains(target) && position(target) < variables_.size() && !contains(scale)) {
      alias_targets_.push_back(position(target));
      add(scale, "alias");
    }
  }
}

std::size_t Ct2ModelFile::variable_of(const std::string& name) const {
  const std::size_t at = position(name);
  return at < variables_.size() ? at : alias_targets_[at - variables_.size()];
}

const std::string& Ct2ModelFile::resolve(const std::string& name) const {
  return names()[variable_of(name)];
}

const Ct2ModelFile::Variable& Ct2ModelFile::find(const std::string& name) const {
  return variables_[variable_of(name)];
}

const Shape& Ct2ModelFile::shape(const std::string& name) const { return find(name).shape; }

const char* Ct2ModelFile::dtype_name(const std::string& name) const {
  return kTypeNames[find(name).type];
}

Tensor Ct2ModelFile::read_tensor(const std::string& name) const {
  const Variable& v = find(name);
  const std::uint8_t* src = file_.data() + v.offset;
  const std::size_t n = v.nbytes / kTypeSizes[v.type];
  const DropPagesOnReturn drop{file_, v.offset, v.nbytes};  // copied below
  if (v.type == kF32 || v.type == kI8 || v.type == kI32) {
    Tensor t(v.shape, v.type == kF32  ? DataType::f32
                      : v.type == kI8 ? DataType::i8
                                      : DataType::i32);
    if (v.nbytes) std::memcpy(t.raw(), src, v.nbytes);
    return t;
  }
  if (v.type == kI16) {
    Tensor t(v.shape, DataType::i32);
    std::int32_t* out = t.data<std::int32_t>();
    for (std::size_t i = 0; i < n; ++i) out[i] = static_cast<std::int32_t>(int_at(kI16, src, i));
    return t;
  }
  Tensor t(v.shape, DataType::f32);
  float* out = t.data<float>();
  for (std::size_t i = 0; i < n; ++i) out[i] = float_at(v.type, src, i);
  return t;
}

const Ct2ModelFile::Variable* Ct2ModelFile::scalar(const std::string& name, bool integer,
                                                   const char* expected) const {
  if (!contains(name)) return nullptr;
  const Variable& v = find(name);
  if (num_elements(v.shape) != 1 || is_integer(v.type) != integer)
    fail("attribute '" + name + "' holds " + kTypeNames[v.type] + " " + to_string(v.shape) +
         ", expected " + expected);
  return &v;
}

std::optional<std::int64_t> Ct2ModelFile::read_int(const std::string& name) const {
  const Variable* v = scalar(name, true, "one int8, int16 or int32 value");
  if (!v) return std::nullopt;
  return int_at(v->type, file_.data() + v->offset, 0);
}

std::optional<bool> Ct2ModelFile::read_bool(const std::string& name) const {
  // CTranslate2 stores flags as int8 and reads any non-zero value as true.
  const Variable* v = scalar(name, true, "one int8 flag");
  if (!v) return std::nullopt;
  return int_at(v->type, file_.data() + v->offset, 0) != 0;
}

std::optional<float> Ct2ModelFile::read_float(const std::string& name) const {
  const Variable* v = scalar(name, false, "one float32, float16 or bfloat16 value");
  if (!v) return std::nullopt;
  return float_at(v->type, file_.data() + v->offset, 0);
}

std::optional<std::string> Ct2ModelFile::read_string(const std::string& name) const {
  if (!contains(name)) return std::nullopt;
  const Variable& v = find(name);
  if (v.type != kI8 || v.shape.size() != 1)
    fail("attribute '" + name + "' holds " + kTypeNames[v.type] + " " + to_string(v.shape) +
         ", expected a 1-D int8 array of UTF-8 bytes");
  return std::string(reinterpret_cast<const char*>(file_.data() + v.offset), v.nbytes);
}

}  // namespace s2s::formats
