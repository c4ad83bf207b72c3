// Marian / OPUS-MT folders (docs/models.md, "Marian / OPUS-MT"): finding the files and reading the
// parts.
#include "s2s/formats/marian.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>


namespace s2s::formats {
namespace fs = std::filesystem;
namespace {

std::vector<fs::path> files_matching(const fs::path& folder, const std::string& suffix) {
  std::vector<fs::path> found;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(folder, ec)) {
    const std::string name = entry.path().filename().string();
    if (entry.is_regular_file(ec) && name.size() >= suffix.size() &&
        name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0)
      found.push_back(entry.path());
  }
  std::sort(found.begin(), found.end());
  return found;
}

fs::path require_file(const fs::path& path, const std::string& what) {
  std::error_code ec;
  if (!fs::is_regular_file(path, ec)) throw ModelError(path.string() + ": " + what + " not found");
  return path;
}

// A path from decoder.yml, resolved as marian-decoder does: relative to the yml's folder when
// `relative-paths: true`, else relative to the working directory (falling back to the folder,
// which is where OPUS-MT releases keep everything).
fs::path resolve(const fs::path& folder, const std::string& entry, bool relative_paths) {
  const fs::path p(entry);
  if (p.is_absolute()) return p;
  if (relative_paths) return folder / p;
  std::error_code ec;
  return fs::exists(p, ec) ? p : folder / p;
}

// The text of a scalar entry of decoder.yml; anything else (a list, a map) is a ModelError.
std::string scalar_entry(const YAML::Node& node, const std::string& yml, const std::string& what) {
  if (!node.IsScalar()) throw ModelError(yml + ": " + what + " is not a file name");
  return node.Scalar();
}

void from_decoder_yml(const fs::path& folder, MarianFiles& files) {
  const std::string yml_path = files.decoder_yml.string();
  YAML::Node yml;
  try {
    yml = YAML::LoadFile(yml_path);
  } catch (const YAML::Exception& e) {
    throw ModelError(yml_path + ": not valid YAML: " + e.what());
  }
  // A file that is a scalar or a list has no options: yaml-cpp would throw on every lookup below
  // (found by tools/fuzz). An empty file is a null node and falls through to "no 'models' list".
  if (!yml.IsMap() && !yml.IsNull())
    throw ModelError(yml_path + ": not a mapping of options (expected 'models:', 'vocabs:', ...)");
  for (const auto& entry : yml)
    if (entry.first.IsScalar() && entry.second.IsScalar())
      files.decoder_settings.emplace_back(entry.first.Scalar(), entry.second.Scalar());
  const bool relative = yml["relative-paths"] && yml["relative-paths"].as<bool>(false);
  const YAML::Node models = yml["models"];
  if (!models || !models.IsSequence() || models.size() == 0)
    throw ModelError(yml_path + ": no 'models' list");
  if (models.size() > 1)
    throw ModelError(yml_path + ": lists " + std::to_string(models.size()) +
                      " models; ensembles are not supported");
  files.model =
      require_file(resolve(folder, scalar_entry(models[0], yml_path, "models[0]"), relative),
                   "model named in decoder.yml");
  const YAML::Node vocabs = yml["vocabs"];
  if (!vocabs || !vocabs.IsSequence() || vocabs.size() != 2)
    throw ModelError(yml_path + ": 'vocabs' must list a source and a target vocabulary");
  files.source_vocab =
      require_file(resolve(folder, scalar_entry(vocabs[0], yml_path, "vocabs[0]"), relative),
                   "source vocabulary named in decoder.yml");
  files.target_vocab =
      require_file(resolve(folder, scalar_entry(vocabs[1], yml_path, "vocabs[1]"), relative),
                   "target vocabulary named in decoder.yml");
}

void by_pattern(const fs::path& folder, MarianFiles& files) {
  std::vector<fs::path> npz = files_matching(folder, ".npz");
  if (npz.empty()) throw ModelError(folder.string() + ": no .npz model and no decoder.yml");
  if (npz.size() > 1) {
    // OPUS-MT keeps the best checkpoint under *.best-perplexity.npz.
    std::vector<fs::path> best = files_matching(folder, ".best-perplexity.npz");
    if (best.size() != 1)
      throw ModelError(folder.string() + ": " + std::to_string(npz.size()) +
                        " .npz files and no decoder.yml to say which one is the model");
    npz = best;
  }
  files.model = npz[0];
  std::vector<fs::path> yml = files_matching(folder, "vocab.yml");
  const std::vector<fs::path> src = files_matching(folder, ".src.vocab");
  const std::vector<fs::path> trg = files_matching(folder, ".trg.vocab");
  if (yml.size() == 1) {
    files.source_vocab = files.target_vocab = yml[0];
  } else if (src.size() == 1 && trg.size() == 1) {
    files.source_vocab = src[0];
    files.target_vocab = trg[0];
  } else if (yml.empty() && src.empty()) {
    // The SentencePiece models double as vocabularies.
    files.source_vocab = require_file(folder / "source.spm", "source vocabulary (source.spm)");
    files.target_vocab = require_file(folder / "target.spm", "target vocabulary (target.spm)");
  } else {
    throw ModelError(folder.string() + ": cannot tell which vocabulary to use; add a decoder.yml");
  }
}

}  // namespace

bool looks_like_marian(const fs::path& folder) {
  std::error_code ec;
  return fs::is_regular_file(folder / "decoder.yml", ec) || !files_matching(folder, ".npz").empty();
}

MarianFiles find_marian_files(const fs::path& folder) {
  MarianFiles files;
  std::error_code ec;
  if (fs::is_regular_file(folder / "decoder.yml", ec)) {
    files.decoder_yml = folder / "decoder.yml";
    from_decoder_yml(folder, files);
  } else {
    by_pattern(folder, files);
  }
  // Text is split by source.spm / target.spm (the vocabularies themselves when they are .spm).
  auto splitter = [&](const fs::path& vocab, const std::string& side) {
    if (vocab.extension() == ".spm") return vocab;
    const fs::path spm = folder / (side + ".spm");
    std::error_code e;
    if (fs::is_regular_file(spm, e)) return spm;
    if (fs::exists(folder / (side + ".bpe"), e))
      throw ModelError(folder.string() + ": BPE models (" + side +
                        ".bpe) are not supported; s2s needs SentencePiece models");
    throw ModelError(spm.string() + ": SentencePiece model not found");
  };
  files.source_spm = splitter(files.source_vocab, "source");
  files.target_spm = splitter(files.target_vocab, "target");
  return files;
}

}  // namespace s2s::formats
