// describe_model (s2s.h): what `s2s info` prints. A folder that lacks only what translation
// needs (a CTranslate2 folder without its SentencePiece models) is still described, and the
// missing files are listed at the end.
#include <cstdarg>
#include <cstdio>
#include <memory>

#include "s2s/backend/cpu_isa.h"
#include "s2s/formats/detect.h"
#include "s2s/formats/shortlist_files.h"
#include "s2s/pipeline/settings.h"
#include "s2s/s2s.h"

namespace s2s {
namespace {

// printf onto the end of `out`.
__attribute__((format(printf, 2, 3))) void add(std::string& out, const char* format, ...) {
  va_list args;
  va_start(args, format);
  va_list again;
  va_copy(again, args);
  const int n = std::vsnprintf(nullptr, 0, format, args);
  va_end(args);
  if (n > 0) {
    const std::size_t at = out.size();
    out.resize(at + static_cast<std::size_t>(n) + 1);
    std::vsnprintf(&out[at], static_cast<std::size_t>(n) + 1, format, again);
    out.resize(at + static_cast<std::size_t>(n));
  }
  va_end(again);
}

const char* yes_no(bool b) { return b ? "yes" : "no"; }

std::string post_ops_name(const std::vector<layers::PostOp>& ops) {
  std::string s;
  for (layers::PostOp op : ops) s += op == layers::PostOp::add ? "a" : "n";
  return s.empty() ? "-" : s;
}

void print_coverage(std::string& out, const char* side, const text::VocabCoverage& c) {
  add(out, "  %s pieces: %d in SentencePiece, %d without a vocabulary id", side, c.spm_pieces,
              c.missing);
  if (!c.examples.empty()) {
    add(out, " (e.g.");
    for (const std::string& e : c.examples) add(out, " '%s'", e.c_str());
    add(out, ")");
  }
  add(out, "\n");
  if (c.spells_everything())
    add(out, "  %s byte fallback: yes, 256 byte pieces: any character can be spelled\n", side);
  else if (c.byte_pieces > 0)
    add(out, "  %s byte fallback: incomplete, %d of %d byte pieces without a vocabulary id\n",
        side, c.missing_byte_pieces, c.byte_pieces);
  else
    add(out, "  %s byte fallback: no, characters without a piece become <unk>\n", side);
}

// Layers, sizes, norms, positions, embeddings, alignment.
void describe_architecture(const model::ModelConfig& c, std::string& out) {
  add(out, "architecture: %s, %s\n", c.architecture.c_str(),
              c.pre_norm ? "pre-norm" : "post-norm");
  add(out, "  layers: %lld encoder, %lld decoder\n", static_cast<long long>(c.encoder_layers),
              static_cast<long long>(c.decoder_layers));
  add(out, "  model dim %lld, heads %lld, feed-forward %lld/%lld (depth %d/%d), activation %s\n",
              static_cast<long long>(c.d_model), static_cast<long long>(c.heads),
              static_cast<long long>(c.encoder_ffn_dim), static_cast<long long>(c.decoder_ffn_dim),
              c.encoder_ffn_depth, c.decoder_ffn_depth, model::activation_name(c.activation));
  add(out, "  block ops: pre-norm %s, post '%s', embedding norm %s, final norm %s, eps %g\n",
              yes_no(c.pre_norm), post_ops_name(c.post_ops).c_str(), yes_no(c.embedding_norm),
              yes_no(c.final_norm), static_cast<double>(c.layer_norm_epsilon));
  add(out, "  positions: %s%s, embeddings scaled: %s\n",
              layers::position_encoding_name(c.positions),
              c.max_positions ? (" (" + std::to_string(c.max_positions) + " rows)").c_str() : "",
              yes_no(c.scale_embeddings));
  if (c.relative_max_distance > 0)
    add(out, "  relative positions in self-attention: max distance %lld\n",
                static_cast<long long>(c.relative_max_distance));
  add(out, "  embeddings shared: %s, output tied: %s, output bias: %s\n",
              yes_no(c.shared_embeddings), yes_no(c.tied_output), yes_no(c.output_bias));
  if (c.alignment_layer >= 0)
    add(out, "  word alignment (--alignment): decoder layer %lld of %lld, head 0\n",
                static_cast<long long>(c.alignment_layer + 1),
                static_cast<long long>(c.decoder_layers));
  else
    add(out, "  word alignment (--alignment): not available: %s\n", c.alignment_note.c_str());
}

// Vocabulary sizes, special ids, what SentencePiece can spell, language tokens.
void describe_vocabulary(const model::Model& model, std::string& out) {
  const model::ModelConfig& c = model.config();
  const model::ModelInfo& info = model.info();
  const text::TextCodec& codec = model.codec();
  add(out, "vocabulary: source %lld, target %lld\n",
              static_cast<long long>(c.source_vocab_size), static_cast<long long>(c.target_vocab_size));
  add(out, "  special ids: source </s> %d, target </s> %d, target <unk> %d, decoder start %s\n",
              c.source_eos_id, c.eos_id, c.unk_id,
              c.decoder_start_id < 0 ? "zero vector" : std::to_string(c.decoder_start_id).c_str());
  add(out, "  source </s> appended: %s\n", yes_no(c.add_source_eos));
  if (info.missing.empty()) {
    print_coverage(out, "source", codec.source_coverage());
    print_coverage(out, "target", codec.target_coverage());
  } else {
    add(out, "  SentencePiece coverage: not checked (files missing, below)\n");
  }
  if (!codec.languages().empty())  // NLLB-200, M2M-100
    add(out, "languages (--source-lang, --target-lang; %zu%s): %s\n",
                codec.languages().tokens.size(),
                codec.languages().source_after_eos ? ", source token after </s>: legacy_behaviour"
                                                   : ", source token first",
                codec.languages().codes().c_str());
  const std::vector<std::string> labels = codec.source_vocab().language_tokens();
  if (!labels.empty()) {
    add(out, "target languages (--target-lang):");
    for (const std::string& l : labels) add(out, " %s", l.substr(2, l.size() - 4).c_str());
    add(out, "\n");
  }
}

// The model's own settings, and what translate does to a line before the model sees it.
void describe_settings(const model::ModelInfo& info, std::string& out) {
  // The model's own settings: those s2s applies, and those it ignores (they do not change
  // translations, e.g. the mini-batch: 1 OPUS-MT writes for servers).
  std::string used, ignored;
  for (const auto& [key, value] : info.search_defaults)
    (pipeline::applies_from_model(key) ? used : ignored) += " " + key + "=" + value;
  if (!used.empty())
    add(out, "model settings (%s), applied:%s\n", info.search_defaults_source.c_str(),
                used.c_str());
  if (!ignored.empty())
    add(out, "model settings (%s), ignored:%s\n", info.search_defaults_source.c_str(),
                ignored.c_str());
  // What translate does to a line before this model sees it (docs/real-text.md).
  add(out, "input text: each line cut into sentences (ICU, English abbreviations), translated "
              "as units and joined; --sentence-split LANG or off changes it\n");
  add(out, "input text: placeholders, e-mail addresses, URLs, paths and characters the "
              "vocabulary cannot spell kept exactly (masked, put back after translation); "
              "--protect off changes it, --html keeps tags\n");
}

// The folder's own shortlist, which translate uses unless --shortlist says otherwise.
void describe_shortlist(const model::Model& model, const std::string& folder, std::string& out) {
  const std::string path = formats::folder_shortlist(folder);
  if (path.empty()) {
    add(out, "shortlist: none in the folder (--shortlist FILE gives one)\n");
    return;
  }
  const auto shortlist = formats::read_shortlist({path, {}}, model);
  if (shortlist->kind() == model::Shortlist::Kind::marian)
    add(out,
        "shortlist: %s (Marian's; first %d, %zu source pieces with targets), used by translate\n",
        path.c_str(), shortlist->first(), shortlist->entries());
  else
    add(out, "shortlist: %s (CTranslate2's vocabulary map, %zu keys), used by translate\n",
        path.c_str(), shortlist->entries());
}

}  // namespace

std::string describe_model(const std::string& model_folder, const std::string& source_spm,
                           const std::string& target_spm) {
  std::string out;
  const std::shared_ptr<const model::Model> model =
      formats::load_model(model_folder, formats::SpmPaths{source_spm, target_spm},
                          ops::Precision::f32, formats::LoadFor::inspection);
  const model::ModelInfo& info = model->info();
  add(out, "format: %s\nfolder: %s\n", info.format.c_str(), info.folder.c_str());
  for (const auto& [role, path] : info.files) add(out, "  %s: %s\n", role.c_str(), path.c_str());
  describe_architecture(model->config(), out);
  add(out, "parameters: %lld\n", static_cast<long long>(info.parameters));
  // The kernels this process runs (backend/cpu_isa.h; S2S_CPU_ISA lowers it).
  add(out, "cpu instructions: %s\n", backend::describe_cpu_isa().c_str());
  describe_vocabulary(*model, out);
  describe_settings(info, out);
  describe_shortlist(*model, model_folder, out);
  // Last, where it is seen: the model is described, but translate and score would refuse it.
  if (!info.missing.empty()) {
    add(out, "missing for translation (translate and score refuse this folder):\n");
    for (const std::string& m : info.missing) add(out, "  %s\n", m.c_str());
  }
  return out;
}

}  // namespace s2s
