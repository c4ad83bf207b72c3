// s2s info: what a model is, and whether it is sound. A folder that lacks only what translation
// needs (a CTranslate2 folder without its SentencePiece models) is still described, and the
// missing files are listed at the end (exit 0: the description is what was asked for).
#include <cstdio>
#include <memory>

#include "commands.h"
#include "s2s/formats/detect.h"
#include "s2s/pipeline/settings.h"

namespace s2s::app {
namespace {

const char* yes_no(bool b) { return b ? "yes" : "no"; }

std::string post_ops_name(const std::vector<layers::PostOp>& ops) {
  std::string s;
  for (layers::PostOp op : ops) s += op == layers::PostOp::add ? "a" : "n";
  return s.empty() ? "-" : s;
}

void print_coverage(const char* side, const text::VocabCoverage& c) {
  std::printf("  %s pieces: %d in SentencePiece, %d without a vocabulary id", side, c.spm_pieces,
              c.missing);
  if (!c.examples.empty()) {
    std::printf(" (e.g.");
    for (const std::string& e : c.examples) std::printf(" '%s'", e.c_str());
    std::printf(")");
  }
  std::printf("\n");
}

struct InfoArgs {
  std::string model;
  formats::SpmPaths spm;
};

void run_info(const InfoArgs& args, const Context& context) {
  const std::shared_ptr<const model::Model> model = formats::load_model(
      model_path(args.model, context), args.spm, ops::Precision::f32, formats::LoadFor::inspection);
  const model::ModelConfig& c = model->config();
  const model::ModelInfo& info = model->info();
  const text::TextCodec& codec = model->codec();
  std::printf("format: %s\nfolder: %s\n", info.format.c_str(), info.folder.c_str());
  for (const auto& [role, path] : info.files) std::printf("  %s: %s\n", role.c_str(), path.c_str());
  std::printf("architecture: %s, %s\n", c.architecture.c_str(),
              c.pre_norm ? "pre-norm" : "post-norm");
  std::printf("  layers: %lld encoder, %lld decoder\n", static_cast<long long>(c.encoder_layers),
              static_cast<long long>(c.decoder_layers));
  std::printf("  model dim %lld, heads %lld, feed-forward %lld/%lld (depth %d/%d), activation %s\n",
              static_cast<long long>(c.d_model), static_cast<long long>(c.heads),
              static_cast<long long>(c.encoder_ffn_dim), static_cast<long long>(c.decoder_ffn_dim),
              c.encoder_ffn_depth, c.decoder_ffn_depth, model::activation_name(c.activation));
  std::printf("  block ops: pre-norm %s, post '%s', embedding norm %s, final norm %s, eps %g\n",
              yes_no(c.pre_norm), post_ops_name(c.post_ops).c_str(), yes_no(c.embedding_norm),
              yes_no(c.final_norm), static_cast<double>(c.layer_norm_epsilon));
  std::printf("  positions: %s%s, embeddings scaled: %s\n",
              layers::position_encoding_name(c.positions),
              c.max_positions ? (" (" + std::to_string(c.max_positions) + " rows)").c_str() : "",
              yes_no(c.scale_embeddings));
  if (c.relative_max_distance > 0)
    std::printf("  relative positions in self-attention: max distance %lld\n",
                static_cast<long long>(c.relative_max_distance));
  std::printf("  embeddings shared: %s, output tied: %s, output bias: %s\n",
              yes_no(c.shared_embeddings), yes_no(c.tied_output), yes_no(c.output_bias));
  if (c.alignment_layer >= 0)
    std::printf("  word alignment (--alignment): decoder layer %lld of %lld, head 0\n",
                static_cast<long long>(c.alignment_layer + 1),
                static_cast<long long>(c.decoder_layers));
  else
    std::printf("  word alignment (--alignment): not available: %s\n", c.alignment_note.c_str());
  std::printf("parameters: %lld\n", static_cast<long long>(info.parameters));
  std::printf("vocabulary: source %lld, target %lld\n",
              static_cast<long long>(c.source_vocab_size), static_cast<long long>(c.target_vocab_size));
  std::printf("  special ids: source </s> %d, target </s> %d, target <unk> %d, decoder start %s\n",
              c.source_eos_id, c.eos_id, c.unk_id,
              c.decoder_start_id < 0 ? "zero vector" : std::to_string(c.decoder_start_id).c_str());
  std::printf("  source </s> appended: %s\n", yes_no(c.add_source_eos));
  if (info.missing.empty()) {
    print_coverage("source", codec.source_coverage());
    print_coverage("target", codec.target_coverage());
  } else {
    std::printf("  SentencePiece coverage: not checked (files missing, below)\n");
  }
  if (!codec.languages().empty())  // NLLB-200, M2M-100
    std::printf("languages (--source-lang, --target-lang; %zu%s): %s\n",
                codec.languages().tokens.size(),
                codec.languages().source_after_eos ? ", source token after </s>: legacy_behaviour"
                                                   : ", source token first",
                codec.languages().codes().c_str());
  const std::vector<std::string> labels = codec.source_vocab().language_tokens();
  if (!labels.empty()) {
    std::printf("target languages (--target-lang):");
    for (const std::string& l : labels) std::printf(" %s", l.substr(2, l.size() - 4).c_str());
    std::printf("\n");
  }
  // The model's own settings: those s2s applies, and those it ignores (they do not change
  // translations, e.g. the mini-batch: 1 OPUS-MT writes for servers).
  std::string used, ignored;
  for (const auto& [key, value] : info.search_defaults)
    (pipeline::applies_from_model(key) ? used : ignored) += " " + key + "=" + value;
  if (!used.empty())
    std::printf("model settings (%s), applied:%s\n", info.search_defaults_source.c_str(),
                used.c_str());
  if (!ignored.empty())
    std::printf("model settings (%s), ignored:%s\n", info.search_defaults_source.c_str(),
                ignored.c_str());
  // What translate does to a line before this model sees it (docs/real-text.md).
  std::printf("input text: each line cut into sentences (ICU, English abbreviations), translated "
              "as units and joined; --sentence-split LANG or off changes it\n");
  std::printf("input text: placeholders, e-mail addresses, URLs, paths and characters the "
              "vocabulary cannot spell kept exactly (masked, put back after translation); "
              "--protect off changes it, --html keeps tags\n");
  // Last, where it is seen: the model is described, but translate and score would refuse it.
  if (!info.missing.empty()) {
    std::printf("missing for translation (translate and score refuse this folder):\n");
    for (const std::string& m : info.missing) std::printf("  %s\n", m.c_str());
  }
}

}  // namespace

void set_info_command(CLI::App& app, const Context& context) {
  auto args = std::make_shared<InfoArgs>();
  CLI::App* cmd = app.add_subcommand("info", "Describe a model and check its files");
  add_model_flags(*cmd, args->model);
  cmd->add_option("--source-spm", args->spm.source,
                  "Source SentencePiece model, for model folders without one (CTranslate2)");
  cmd->add_option("--target-spm", args->spm.target,
                  "Target SentencePiece model, for model folders without one (CTranslate2)");
  cmd->callback([args, &context]() { run_info(*args, context); });
}

}  // namespace s2s::app
