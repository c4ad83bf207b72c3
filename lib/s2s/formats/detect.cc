#include "s2s/formats/detect.h"

#include <cstdlib>
#include <filesystem>

#include "s2s/formats/hf_marian.h"
#include "s2s/formats/marian.h"
#include "s2s/formats/npz.h"

namespace s2s::formats {
namespace fs = std::filesystem;
namespace {

// The shipped default model (models/<name>).
constexpr const char* kDefaultModel = "en-de";

std::shared_ptr<const Model> load_marian(const fs::path& folder, ops::Precision precision) {
  const MarianFiles files = find_marian_files(folder);
  ModelConfig config;
  {
    NpzArchive archive(files.model.string());
    if (!archive.contains("special:model.yml"))
      throw ModelError(files.model.string() + ": no special:model.yml entry (not a Marian model?)");
    config = marian_config(archive.read_text("special:model.yml"), files.model.string());
  }
  WeightStore weights(files.model.string());
  load_marian_weights(files.model, config, weights);

  auto codec = std::make_unique<text::TextCodec>(text::TextCodec::load(
      files.source_spm.string(), files.source_vocab.string(), config.source_vocab_size,
      files.target_spm.string(), files.target_vocab.string(), config.target_vocab_size));
  config.source_eos_id = codec->source_vocab().eos_id();
  config.eos_id = codec->target_vocab().eos_id();
  config.unk_id = codec->target_vocab().unk_id();

  ModelInfo info;
  info.format = "marian";
  info.folder = folder.string();
  info.files = {{"model", files.model.string()},
                {"source vocabulary", files.source_vocab.string()},
                {"target vocabulary", files.target_vocab.string()},
                {"source SentencePiece", files.source_spm.string()},
                {"target SentencePiece", files.target_spm.string()}};
  if (!files.decoder_yml.empty()) {
    info.files.emplace_back("decoder config", files.decoder_yml.string());
    info.search_defaults = files.decoder_settings;
    info.search_defaults_source = files.decoder_yml.string();
  }
  return std::make_shared<const Model>(std::move(config), std::move(weights), std::move(codec),
                                       std::move(info), precision);
}

}  // namespace

std::shared_ptr<const Model> load_model(const std::string& path, const SpmPaths& spm,
                                        ops::Precision precision) {
  std::error_code ec;
  fs::path folder(path);
  if (!fs::exists(folder, ec)) throw ModelError(path + ": no such model folder");
  if (fs::is_regular_file(folder, ec)) folder = folder.parent_path();
  if (folder.empty()) folder = ".";
  if (looks_like_marian(folder)) return load_marian(folder, precision);
  if (looks_like_hf_marian(folder)) return load_hf_marian(folder, precision);
  if (looks_like_ct2(folder)) return load_ct2(folder, spm, precision);
  throw ModelError(path + ": not a model folder (looked for a Marian decoder.yml or .npz, a Hugging "
                   "Face config.json with model.safetensors, or a CTranslate2 model.bin)");
}

std::string default_model_path(const std::string& executable) {
  if (const char* env = std::getenv("S2S_MODEL"); env && *env) return env;
  std::error_code ec;
  const fs::path exe_dir = fs::weakly_canonical(fs::path(executable), ec).parent_path();
  // Build tree (build/s2s -> ../models), source-adjacent binary, install prefix.
  for (const fs::path& candidate :
       {exe_dir / "models", exe_dir.parent_path() / "models",
        exe_dir.parent_path() / "share" / "s2s" / "models"}) {
    if (fs::is_directory(candidate / kDefaultModel, ec)) return (candidate / kDefaultModel).string();
  }
  throw UsageError(std::string("no model given (-m) and the default model '") + kDefaultModel +
                   "' was not found next to the executable; set S2S_MODEL or pass -m FOLDER");
}

}  // namespace s2s::formats
