#include "s2s/formats/shortlist_files.h"

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <unordered_map>

#include "s2s/core/error.h"
#include "s2s/formats/mapped_file.h"

namespace s2s::formats {
namespace {

constexpr std::uint64_t kBinaryMagic = 0xF11A48D5013417F5ULL;

[[noreturn]] void fail(const std::string& path, const std::string& what) {
  throw ModelError(path + ": " + what);
}

// Marian's numeric shortlist arguments (std::stoi / std::stof in its constructors).
double number(const ShortlistSpec& spec, std::size_t i, double fallback, const char* what) {
  if (i >= spec.args.size()) return fallback;
  try {
    std::size_t used = 0;
    const double v = std::stod(spec.args[i], &used);
    if (used == spec.args[i].size() && v >= 0) return v;
  } catch (const std::exception&) {
  }
  throw UsageError("--shortlist " + spec.path + ": " + what + " '" + spec.args[i] +
                   "' is not a non-negative number");
}

bool is_binary(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::uint64_t magic = 0;
  in.read(reinterpret_cast<char*>(&magic), sizeof magic);
  return in && magic == kBinaryMagic;
}

bool is_vocabulary_map(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line))
    if (!line.empty()) return line.find('\t') != std::string::npos;
  return false;
}

// marian-dev src/common/hash.h: hashMem with hash_combine over std::hash<uint64_t> (the value).
std::uint64_t marian_hash(const std::uint64_t* words, std::size_t count) {
  std::uint64_t seed = 0;
  for (std::size_t i = 0; i < count; ++i)
    seed ^= words[i] + 0x9e3779b9ULL + (seed << 6) + (seed >> 2);
  return seed;
}

std::shared_ptr<const model::Shortlist> read_binary(const ShortlistSpec& spec,
                                                    const model::Model& model) {
  const MappedFile file(spec.path);
  const std::size_t size = file.size();
  if (size < 6 * sizeof(std::uint64_t)) fail(spec.path, "too short for a binary shortlist header");
  std::vector<std::uint64_t> header(6);
  std::memcpy(header.data(), file.data(), 6 * sizeof(std::uint64_t));
  const std::uint64_t first = header[2], offsets = header[4], length = header[5];
  if (offsets == 0 || offsets > size || length > size || 48 + offsets * 8 + length * 4 != size)
    fail(spec.path, "the header says " + std::to_string(offsets) + " offsets and " +
                        std::to_string(length) + " targets, which is not the file's " +
                        std::to_string(size) + " bytes");
  const bool check = number(spec, 0, 1, "check") != 0;
  std::vector<std::uint64_t> words((size - 16) / 8);
  std::memcpy(words.data(), file.data() + 16, words.size() * 8);
  if (check && marian_hash(words.data(), words.size()) != header[1])
    fail(spec.path, "checksum mismatch: the binary shortlist is corrupted");
  std::vector<std::uint64_t> offset(offsets);
  std::memcpy(offset.data(), file.data() + 48, offsets * 8);
  std::vector<std::uint32_t> lists(length);
  std::memcpy(lists.data(), file.data() + 48 + offsets * 8, length * 4);
  // BinaryShortlistGenerator::contentCheck (with the check flag): every offset but the last
  // inside the lists, the last at their end, every target in the vocabulary.
  const auto vocab = static_cast<std::uint32_t>(model.config().target_vocab_size);
  const bool inside =
      std::all_of(offset.begin(), offset.end() - 1, [&](std::uint64_t o) { return o < length; });
  if (check &&
      (!inside || offset.back() != length ||
       std::any_of(lists.begin(), lists.end(), [&](std::uint32_t t) { return t >= vocab; })))
    fail(spec.path, "offsets or target ids out of bounds (a target vocabulary of " +
                        std::to_string(vocab) + ")");
  std::vector<std::vector<std::int32_t>> targets(offsets - 1);
  for (std::size_t s = 0; s + 1 < offsets; ++s)
    for (std::uint64_t j = offset[s]; j < std::min(offset[s + 1], length); ++j)
      if (lists[j] < vocab) targets[s].push_back(static_cast<std::int32_t>(lists[j]));
  const auto& codec = model.codec();
  return std::make_shared<model::Shortlist>(
      model::Shortlist::marian(static_cast<std::int32_t>(first), std::move(targets),
                               codec.source_vocab().path() == codec.target_vocab().path()));
}

std::shared_ptr<const model::Shortlist> read_text(const ShortlistSpec& spec,
                                                  const model::Model& model) {
  const auto first = static_cast<std::int32_t>(number(spec, 0, 100, "first"));
  const auto best = static_cast<std::size_t>(number(spec, 1, 100, "best"));
  const auto threshold = static_cast<float>(number(spec, 2, 0, "threshold"));
  std::ifstream in(spec.path);
  if (!in) fail(spec.path, "cannot be read");
  const text::Vocabulary& source = model.codec().source_vocab();
  const text::Vocabulary& target = model.codec().target_vocab();
  std::vector<std::unordered_map<std::int32_t, float>> probs(
      static_cast<std::size_t>(source.size()));
  std::string trg, src;
  float prob = 0;
  // Marian reads `in >> trg >> src >> prob` until the first entry that does not parse.
  while (in >> trg >> src >> prob) {
    if (src == "NULL" || trg == "NULL") continue;
    probs[static_cast<std::size_t>(source.id_of(src))][target.id_of(trg)] = prob;
  }
  if (!in.eof()) fail(spec.path, "an entry is not 'TARGET SOURCE PROBABILITY'");
  std::vector<std::vector<std::int32_t>> targets(probs.size());
  for (std::size_t s = 0; s < probs.size(); ++s) {
    std::vector<std::pair<float, std::int32_t>> sorted;
    for (const auto& [t, p] : probs[s]) sorted.emplace_back(p, t);
    std::sort(sorted.begin(), sorted.end(), std::greater<>());
    for (const auto& [p, t] : sorted) {
      if (targets[s].size() >= best || !(p > threshold)) break;
      targets[s].push_back(t);
    }
  }
  return std::make_shared<model::Shortlist>(
      model::Shortlist::marian(first, std::move(targets), source.path() == target.path()));
}

std::vector<std::string> words_of(const std::string& text) {
  std::istringstream in(text);
  std::vector<std::string> words;
  for (std::string w; in >> w;) words.push_back(w);
  return words;
}

std::shared_ptr<const model::Shortlist> read_map(const ShortlistSpec& spec,
                                                 const model::Model& model) {
  std::ifstream in(spec.path);
  if (!in) fail(spec.path, "cannot be read");
  const text::Vocabulary& source = model.codec().source_vocab();
  const text::Vocabulary& target = model.codec().target_vocab();
  std::vector<std::map<std::vector<std::int32_t>, std::vector<std::int32_t>>> rules;
  std::vector<std::int32_t> always = {target.unk_id(), target.eos_id()};
  if (target.contains("<s>")) always.push_back(target.id_of("<s>"));
  std::string line;
  for (std::size_t n = 1; std::getline(in, line); ++n) {
    const std::size_t tab = line.find('\t');
    if (tab == std::string::npos) {
      if (line.empty()) continue;
      fail(spec.path, "line " + std::to_string(n) + " has no tab between source and targets");
    }
    // Unknown pieces are <unk> on both sides, as CTranslate2's vocabularies map them. A key's
    // unknown piece then matches every source piece encoded as <unk>, where CTranslate2 compares
    // the strings its caller gives: a superset, on pieces the model cannot read anyway.
    std::vector<std::int32_t> ids;
    for (const std::string& w : words_of(line.substr(tab + 1))) ids.push_back(target.id_of(w));
    const std::vector<std::string> key_words = words_of(line.substr(0, tab));
    if (key_words.empty()) {
      always.insert(always.end(), ids.begin(), ids.end());
      continue;
    }
    std::vector<std::int32_t> key;
    for (const std::string& w : key_words) key.push_back(source.id_of(w));
    if (rules.size() < key.size()) rules.resize(key.size());
    rules[key.size() - 1][key] = std::move(ids);
  }
  return std::make_shared<model::Shortlist>(
      model::Shortlist::vocabulary_map(std::move(rules), std::move(always)));
}

}  // namespace

std::shared_ptr<const model::Shortlist> read_shortlist(const ShortlistSpec& spec,
                                                       const model::Model& model) {
  if (!std::filesystem::is_regular_file(spec.path)) fail(spec.path, "no such shortlist file");
  if (is_binary(spec.path)) return read_binary(spec, model);
  if (is_vocabulary_map(spec.path)) {
    if (!spec.args.empty())
      throw UsageError("--shortlist " + spec.path +
                       ": a CTranslate2 vocabulary map takes no numbers after the file");
    return read_map(spec, model);
  }
  return read_text(spec, model);
}

std::string folder_shortlist(const std::string& folder) {
  namespace fs = std::filesystem;
  std::error_code error;
  if (!fs::is_directory(folder, error)) return "";
  std::vector<std::string> found;
  for (const auto& entry : fs::directory_iterator(folder, error)) {
    const std::string name = entry.path().filename().string();
    const auto ends = [&](const std::string& end) {
      return name.size() > end.size() &&
             name.compare(name.size() - end.size(), end.size(), end) == 0;
    };
    const bool lex = name.rfind("lex.", 0) == 0 && (ends(".bin") || ends(".s2t"));
    if (lex || name == "vmap.txt") found.push_back(entry.path().string());
  }
  std::sort(found.begin(), found.end());
  return found.empty() ? "" : found.front();
}

}  // namespace s2s::formats
