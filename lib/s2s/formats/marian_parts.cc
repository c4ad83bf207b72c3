// read_marian: a Marian folder's parts (its .npz weights and model.yml, its vocabularies and
// SentencePiece models). Apart from marian.cc, which only finds the folder's files and reads
// decoder.yml, so that the libFuzzer build of those (tools/fuzz) needs no weight store.
#include "s2s/formats/marian.h"
#include "s2s/formats/npz.h"

namespace s2s::formats {

namespace fs = std::filesystem;

ModelParts read_marian(const fs::path& folder) {
  const MarianFiles files = find_marian_files(folder);
  ModelParts parts;
  {
    NpzArchive archive(files.model.string());
    if (!archive.contains("special:model.yml"))
      throw ModelError(files.model.string() + ": no special:model.yml entry (not a Marian model?)");
    parts.config = marian_config(archive.read_text("special:model.yml"), files.model.string());
  }
  parts.weights = layers::WeightStore(files.model.string());
  load_marian_weights(files.model, parts.config, parts.weights);
  parts.source = {files.source_spm, files.source_vocab};
  parts.target = {files.target_spm, files.target_vocab};

  model::ModelInfo& info = parts.info;
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
  return parts;
}

}  // namespace s2s::formats
