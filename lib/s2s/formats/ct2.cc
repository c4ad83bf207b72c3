#include "s2s/formats/ct2.h"

#include <cmath>
#include <fstream>
#include <set>
#include <tuple>
#include <nlohmann/json.hpp>

#include "s2s/core/problems.h"
#include "s2s/formats/ct2_model.h"
#include "s2s/formats/hf_m2m100.h"

namespace s2s::formats {
namespace fs = std::filesystem;
namespace {

// CTranslate2's ActivationType (python/ctranslate2/specs/common_spec.py).
ops::Activation activation(std::int64_t code, const std::string& path) {
  switch (code) {
    case 0:
      return ops::Activation::relu;
    case 2:
      return ops::Activation::swish;
    case 3:
      return ops::Activation::gelu;  // the erf form
    default:
      break;
  }
  throw ModelError(path + ": activation " + std::to_string(code) +
                   " is not supported (relu, swish and erf gelu are; CTranslate2's tanh and "
                   "sigmoid gelu approximations are not)");
}

// Reads a weight; int8 weights are dequantised row by row with their `_scale` (q / scale).
Tensor read_weight(const Ct2ModelFile& file, const std::string& name) {
  Tensor t = file.read_tensor(name);
  if (t.dtype() == DataType::f32) return t;
  if (t.dtype() != DataType::i8 || !file.contains(name + "_scale"))
    throw ModelError(file.path() + ": variable '" + name + "' has type " + file.dtype_name(name) +
                     " without a weight_scale");
  const Tensor scale = file.read_tensor(name + "_scale");
  const dim_t rows = t.dim(0), cols = t.numel() / std::max<dim_t>(rows, 1);
  if (scale.numel() != rows)
    throw ModelError(file.path() + ": '" + name + "_scale' has " + std::to_string(scale.numel()) +
                     " values for " + std::to_string(rows) + " rows");
  Tensor out(t.shape());
  for (dim_t r = 0; r < rows; ++r)
    for (dim_t c = 0; c < cols; ++c)
      out.data<float>()[r * cols + c] =
          static_cast<float>(t.data<std::int8_t>()[r * cols + c]) / scale.data<float>()[r];
  return out;
}

class Mapper {
 public:
  Mapper(const Ct2ModelFile& file, layers::WeightStore& weights) : file_(file), w_(weights) {}

  void matrix(const std::string& name, const std::string& canonical,
              ops::WeightLayout layout = ops::WeightLayout::in_out) {
    w_.add(canonical, read_weight(file_, name), layout, name);
  }
  void linear(const std::string& name, const std::string& canonical) {
    matrix(name + "/weight", canonical + "/weight", ops::WeightLayout::out_in);
    matrix(name + "/bias", canonical + "/bias");
  }
  void norm(const std::string& name, const std::string& canonical) {
    matrix(name + "/gamma", canonical + "/scale");
    matrix(name + "/beta", canonical + "/bias");
  }
  // A fused [parts·D, D] projection (Q|K|V or K|V) split into its parts, [D, D] each.
  void fused(const std::string& name, const std::vector<std::string>& canonical) {
    const Tensor weight = read_weight(file_, name + "/weight");
    const Tensor bias = read_weight(file_, name + "/bias");
    const dim_t parts = static_cast<dim_t>(canonical.size()), d = weight.dim(0) / parts;
    if (weight.rank() != 2 || weight.dim(0) != parts * d || bias.numel() != parts * d)
      throw ModelError(file_.path() + ": '" + name + "' is not " + std::to_string(parts) +
                       " fused projections: weight " + to_string(weight.shape()));
    for (dim_t p = 0; p < parts; ++p) {
      w_.add(canonical[p] + "/weight", weight.slice(0, p * d, (p + 1) * d).clone(),
             ops::WeightLayout::out_in, name + "/weight");
      w_.add(canonical[p] + "/bias", bias.slice(0, p * d, (p + 1) * d).clone(),
             ops::WeightLayout::in_out, name + "/bias");
    }
  }

 private:
  const Ct2ModelFile& file_;
  layers::WeightStore& w_;
};

std::int64_t require_int(const Ct2ModelFile& f, const std::string& name, std::int64_t fallback) {
  return f.read_int(name).value_or(fallback);
}

}  // namespace

namespace {

dim_t count_layers(const Ct2ModelFile& f, const std::string& stack) {
  dim_t n = 0;
  while (f.contains(stack + "/layer_" + std::to_string(n) + "/ffn/linear_0/weight")) ++n;
  return n;
}

// `<stack>/scale_embeddings`: a flag (missing = set: × sqrt(D)), or the factor itself, which the
// Transformers converter stores (embed_scale: sqrt(d_model), or 1.0 without scale_embedding);
// transformer.cc build_embeddings_scale reads both.
bool scales_embeddings(const Ct2ModelFile& f, const std::string& stack, dim_t d_model,
                       std::vector<std::string>& problems) {
  const std::string name = stack + "/scale_embeddings";
  if (!f.contains(name) || std::string(f.dtype_name(name)) == "int8")
    return f.read_bool(name).value_or(true);
  const float scale = *f.read_float(name);
  const float root = std::sqrt(static_cast<float>(d_model));
  if (scale == 1.0f) return false;
  if (std::abs(scale - root) <= 1e-6f * root) return true;
  problems.push_back(name + " " + std::to_string(scale) + " (s2s scales embeddings by sqrt(" +
                     std::to_string(d_model) + ") or not at all)");
  return true;
}

// The model's math from the spec attributes stored in model.bin (missing ones take
// CTranslate2's defaults) and config.json.
model::ModelConfig ct2_config(const Ct2ModelFile& f, const nlohmann::json& cfg) {
  const std::string& path = f.path();
  if (f.spec_name() != "TransformerSpec")
    throw ModelError(path + ": spec '" + f.spec_name() + "' is not supported (TransformerSpec)");
  std::vector<std::string> problems;
  model::ModelConfig c;
  c.architecture = "transformer (CTranslate2)";
  c.encoder_layers = count_layers(f, "encoder");
  c.decoder_layers = count_layers(f, "decoder");
  c.heads = require_int(f, "encoder/num_heads", 8);
  if (require_int(f, "decoder/num_heads", c.heads) != c.heads)
    problems.push_back("different encoder and decoder head counts");
  const Shape ffn = f.shape("encoder/layer_0/ffn/linear_0/weight");  // [F, D]
  c.encoder_ffn_dim = ffn[0];
  c.d_model = ffn[1];
  // CTranslate2's alignment attention (return_alignment): layer -1 = the last, and the mean of
  // the first alignment_heads heads (0 = all); s2s gives one head, as Marian does.
  const std::int64_t align_layer = f.read_int("decoder/alignment_layer").value_or(-1);
  const std::int64_t align_heads = f.read_int("decoder/alignment_heads").value_or(1);
  const std::int64_t layer_index = align_layer < 0 ? c.decoder_layers + align_layer : align_layer;
  if (align_heads != 1)
    c.alignment_note = "its alignment_heads is " + std::to_string(align_heads) +
                       " (CTranslate2 averages that many heads); s2s aligns with one head";
  else if (layer_index < 0 || layer_index >= c.decoder_layers)
    c.alignment_note = "its alignment_layer " + std::to_string(align_layer) +
                       " names no decoder layer";
  else
    c.alignment_layer = layer_index;
  if (c.decoder_layers > 0) c.decoder_ffn_dim = f.shape("decoder/layer_0/ffn/linear_0/weight")[0];
  c.activation = activation(require_int(f, "encoder/activation", 0), path);
  c.pre_norm = f.read_bool("encoder/pre_norm").value_or(true);
  c.post_ops = c.pre_norm ? std::vector<layers::PostOp>{layers::PostOp::add}
                          : std::vector<layers::PostOp>{layers::PostOp::add, layers::PostOp::norm};
  c.final_norm = c.pre_norm;
  // config.json may set it; otherwise CTranslate2 uses 1e-5 for norms with a beta.
  c.layer_norm_epsilon = cfg.contains("layer_norm_epsilon") && cfg["layer_norm_epsilon"].is_number()
                             ? cfg["layer_norm_epsilon"].get<float>()
                             : 1e-5f;
  c.scale_embeddings = scales_embeddings(f, "encoder", c.d_model, problems);
  if (scales_embeddings(f, "decoder", c.d_model, problems) != c.scale_embeddings)
    problems.push_back("different embedding scaling in encoder and decoder");
  const std::string rel = "encoder/layer_0/self_attention/relative_position_keys";
  if (f.contains(rel)) {
    c.relative_max_distance = (f.shape(rel)[0] - 1) / 2;  // K = (rows − 1) / 2
    c.positions = layers::PositionEncoding::none;
  } else if (f.contains("encoder/position_encodings/encodings")) {
    c.positions = layers::PositionEncoding::learned;  // a stored table, added as it is
    c.max_positions = f.shape("encoder/position_encodings/encodings")[0];
  } else {
    c.positions = layers::PositionEncoding::none;
  }
  for (const char* flag : {"encoder/multi_query_attention", "decoder/alibi",
                           "encoder/layernorm_embedding", "decoder/layernorm_embedding"})
    if (f.read_bool(flag).value_or(false))
      problems.push_back(std::string(flag) + " is not supported");
  if (f.contains("encoder/embeddings_1/weight"))
    problems.push_back("source features are not supported");
  c.add_source_eos = cfg.value("add_source_eos", false);
  throw_if_problems<ModelError>(path + ": unsupported model", problems);
  return c;
}

void load_weights(const Ct2ModelFile& f, model::ModelConfig& c, layers::WeightStore& w) {
  Mapper m(f, w);
  const std::string enc_emb = f.contains("encoder/embeddings_0/weight")
                                  ? "encoder/embeddings_0/weight"
                                  : "encoder/embeddings/weight";
  c.shared_embeddings = f.resolve(enc_emb) == f.resolve("decoder/embeddings/weight");
  m.matrix(c.shared_embeddings ? f.resolve(enc_emb) : enc_emb, "encoder/embeddings");
  if (c.shared_embeddings)
    w.alias("decoder/embeddings", "encoder/embeddings");
  else
    m.matrix("decoder/embeddings/weight", "decoder/embeddings");
  c.source_vocab_size = f.shape(enc_emb)[0];
  c.target_vocab_size = f.shape("decoder/embeddings/weight")[0];
  if (c.positions == layers::PositionEncoding::learned) {
    if (f.resolve("encoder/position_encodings/encodings") !=
        f.resolve("decoder/position_encodings/encodings"))
      throw ModelError(f.path() +
                       ": different encoder and decoder position tables are not supported");
    m.matrix("decoder/position_encodings/encodings", "positions");
  }
  const char* block_norm = c.pre_norm ? "/pre_norm" : "/post_norm";
  for (const char* stack : {"encoder", "decoder"}) {
    const std::string s = stack;
    const dim_t layers = s == "encoder" ? c.encoder_layers : c.decoder_layers;
    for (dim_t i = 0; i < layers; ++i) {
      const std::string src = s + "/layer_" + std::to_string(i);
      const std::string dst = src;  // canonical names use the same stack/layer_<i> prefix
      m.fused(src + "/self_attention/linear_0",
              {dst + "/self_attn/q", dst + "/self_attn/k", dst + "/self_attn/v"});
      m.linear(src + "/self_attention/linear_1", dst + "/self_attn/o");
      m.norm(src + "/self_attention/layer_norm", dst + "/self_attn" + block_norm);
      if (c.relative_max_distance > 0) {
        m.matrix(src + "/self_attention/relative_position_keys", dst + "/self_attn/relative_keys");
        m.matrix(src + "/self_attention/relative_position_values",
                 dst + "/self_attn/relative_values");
      }
      if (s == "decoder") {
        m.linear(src + "/attention/linear_0", dst + "/cross_attn/q");
        m.fused(src + "/attention/linear_1", {dst + "/cross_attn/k", dst + "/cross_attn/v"});
        m.linear(src + "/attention/linear_2", dst + "/cross_attn/o");
        m.norm(src + "/attention/layer_norm", dst + "/cross_attn" + block_norm);
      }
      m.linear(src + "/ffn/linear_0", dst + "/ffn/linear_0");
      m.linear(src + "/ffn/linear_1", dst + "/ffn/linear_1");
      m.norm(src + "/ffn/layer_norm", dst + "/ffn" + block_norm);
    }
    if (c.final_norm) m.norm(s + "/layer_norm", s + "/final_norm");
  }
  c.tied_output = f.resolve("decoder/projection/weight") == f.resolve("decoder/embeddings/weight");
  if (!c.tied_output)
    m.matrix("decoder/projection/weight", "decoder/output/weight", ops::WeightLayout::out_in);
  c.output_bias = f.contains("decoder/projection/bias");
  if (c.output_bias) m.matrix("decoder/projection/bias", "decoder/output/bias");
}

// Every stored tensor must have found a place (scalars are spec attributes, `_scale` variables
// belong to their int8 weight); anything else means a spec variant this loader does not know.
void check_all_used(const Ct2ModelFile& f, const layers::WeightStore& w) {
  std::set<std::string> used;
  for (const std::string& name : f.names())
    if (w.contains_origin(name)) used.insert(f.resolve(name));
  std::vector<std::string> unexpected;
  for (const std::string& name : f.names()) {
    const std::string& target = f.resolve(name);
    if (f.shape(target).empty() || used.count(target)) continue;
    if (target.size() > 6 && target.compare(target.size() - 6, 6, "_scale") == 0 &&
        used.count(target.substr(0, target.size() - 6)))
      continue;
    unexpected.push_back(name);
  }
  if (!unexpected.empty())
    throw ModelError(f.path() + ": variables this loader does not know: " + join(unexpected, ", "));
}

// The text files of a CTranslate2 folder: its vocabularies (shared_vocabulary.json, or
// source_/target_vocabulary.json) and SentencePiece models, which converted folders often lack
// (given by the caller then). Every missing one is listed, not just the first.
struct FolderFiles {
  fs::path source_vocab, target_vocab, source_spm, target_spm;  // empty when missing
  std::vector<std::string> missing;  // each with how to supply it
};

// <name>.json, else <name>.txt (one token a line, as older converters wrote it): the order
// CTranslate2's load_vocabulary tries them in. Empty when neither is there.
fs::path vocab_file(const fs::path& folder, const std::string& name) {
  std::error_code ec;
  for (const char* extension : {".json", ".txt"})
    if (fs::is_regular_file(folder / (name + extension), ec)) return folder / (name + extension);
  return {};
}

fs::path find_vocab(const fs::path& folder, bool shared, const char* side, FolderFiles& files) {
  const std::string name = shared ? "shared_vocabulary" : std::string(side) + "_vocabulary";
  fs::path path = vocab_file(folder, name);
  if (path.empty())
    files.missing.push_back(name + ".json (the " + side +
                            " vocabulary; or shared_vocabulary.json, or .txt)");
  return path;
}

fs::path find_spm(const fs::path& folder, const std::string& given, const char* side,
                  FolderFiles& files) {
  std::error_code ec;
  const std::string flag = std::string("--") + side + "-spm";
  if (!given.empty()) {
    if (fs::is_regular_file(given, ec)) return given;
    files.missing.push_back(flag + " " + given + " (no such file)");
    return {};
  }
  // sentencepiece.bpe.model: NLLB-200 / M2M-100 conversions, copied from the Hugging Face folder.
  for (const std::string& name : {std::string(side) + ".spm", std::string(side) + ".model",
                                 std::string("sentencepiece.model"),
                                 std::string("sentencepiece.bpe.model")})
    if (fs::is_regular_file(folder / name, ec)) return folder / name;
  files.missing.push_back(std::string(side) + ".spm (the " + side +
                          " SentencePiece model, which CTranslate2 folders do not always "
                          "include; or give " + flag + " FILE)");
  return {};
}

FolderFiles find_text_files(const fs::path& folder, const SpmPaths& spm) {
  FolderFiles files;
  const bool shared = !vocab_file(folder, "shared_vocabulary").empty();
  files.source_vocab = find_vocab(folder, shared, "source", files);
  files.target_vocab = shared ? files.source_vocab : find_vocab(folder, false, "target", files);
  files.source_spm = find_spm(folder, spm.source, "source", files);
  files.target_spm = find_spm(folder, spm.target, "target", files);
  return files;
}

// The converter writes one token per embedding row (model_spec.py register_vocabulary; the
// spec's vocabulary size is the embedding's rows): any other count means the files do not belong
// together. Loaded whole, not cut to the rows as Marian's --dim-vocabs would.
std::unique_ptr<text::TextCodec> checked_codec(const ModelParts& parts) {
  ModelParts whole;
  whole.source = parts.source;
  whole.target = parts.target;
  whole.config.source_vocab_size = whole.config.target_vocab_size = 0;
  std::unique_ptr<text::TextCodec> codec = load_codec(whole);
  for (const auto& [vocab, rows, embedding] :
       {std::tuple{&codec->source_vocab(), parts.config.source_vocab_size, "encoder"},
        std::tuple{&codec->target_vocab(), parts.config.target_vocab_size, "decoder"}})
    if (vocab->size() != rows)
      throw ModelError(vocab->path() + ": " + std::to_string(vocab->size()) + " tokens, but the " +
                       embedding + " embeddings of model.bin have " + std::to_string(rows) +
                       " rows (a CTranslate2 vocabulary has one token per row)");
  return codec;
}

// config.json settings s2s does not follow.
void check_ct2_settings(const nlohmann::json& cfg, const fs::path& path) {
  if (cfg.value("add_source_bos", false))
    throw ModelError(path.string() + ": add_source_bos true is not supported");
}

// NLLB-200 / M2M-100 conversions: their vocabulary holds the language tokens
// (hf_m2m100.h converted_languages). The codec then places the source token and appends </s> as
// the family's tokenizer does: the converter writes add_source_eos false, because CTranslate2
// users pass the tokenizer's tokens, </s> and the language token included.
void add_languages(const fs::path& folder, ModelParts& parts) {
  if (parts.source.vocab != parts.target.vocab) return;  // the family's vocabulary is shared
  text::LanguageTokens languages =
      converted_languages(folder, parts.codec->target_vocab(), parts.target.spm);
  if (languages.empty()) return;
  model::ModelConfig& c = parts.config;
  c.architecture = languages.family == text::LanguageFamily::nllb
                       ? "transformer (CTranslate2 conversion of NLLB-200)"
                       : "transformer (CTranslate2 conversion of M2M-100)";
  c.add_source_eos = true;
  c.alignment_layer = -1;  // the converter's default alignment_layer names no trained head
  c.alignment_note = kFairseqNoAlignment;
  parts.codec->set_languages(std::move(languages));
}

std::string missing_message(const fs::path& folder, const std::vector<std::string>& missing) {
  return folder.string() + ": missing for translation: " + join(missing, "; ");
}

}  // namespace

bool looks_like_ct2(const fs::path& folder) {
  std::error_code ec;
  return fs::is_regular_file(folder / "model.bin", ec);
}

ModelParts read_ct2(const fs::path& folder, const SpmPaths& spm, LoadFor purpose) {
  const fs::path bin = folder / "model.bin";
  // Checked before the weights load: translation fails at once, naming everything missing.
  const FolderFiles text_files = find_text_files(folder, spm);
  // Without its vocabularies a model cannot be described either (special ids, sizes checked).
  const bool vocab_missing = text_files.source_vocab.empty() || text_files.target_vocab.empty();
  if (!text_files.missing.empty() && (purpose == LoadFor::translation || vocab_missing))
    throw ModelError(missing_message(folder, text_files.missing));
  nlohmann::json cfg = nlohmann::json::object();
  std::error_code ec;
  if (fs::exists(folder / "config.json", ec)) {
    std::ifstream in(folder / "config.json");
    try {
      cfg = nlohmann::json::parse(in);
    } catch (const nlohmann::json::exception& e) {
      throw ModelError((folder / "config.json").string() + ": not valid JSON: " + e.what());
    }
  }
  const Ct2ModelFile file(bin.string());
  ModelParts parts;
  parts.config = ct2_config(file, cfg);
  parts.weights = layers::WeightStore(bin.string());
  load_weights(file, parts.config, parts.weights);
  check_all_used(file, parts.weights);

  parts.source.vocab = text_files.source_vocab;
  parts.target.vocab = text_files.target_vocab;
  // A missing SentencePiece model (inspection only) leaves that side without one: the
  // vocabulary and everything else can still be described.
  parts.source.spm = text_files.source_spm;
  parts.target.spm = text_files.target_spm;
  parts.eos_token = cfg.value("eos_token", std::string("</s>"));
  parts.unk_token = cfg.value("unk_token", std::string("<unk>"));
  // Marian conversions start from a zero vector; others from the decoder start token.
  if (file.read_bool("decoder/start_from_zero_embedding").value_or(false))
    parts.config.decoder_start_id = -1;
  else
    parts.decoder_start_token = cfg.value("decoder_start_token", std::string("<s>"));
  check_ct2_settings(cfg, folder / "config.json");
  parts.codec = checked_codec(parts);
  add_languages(folder, parts);

  model::ModelInfo& info = parts.info;
  info.format = "ctranslate2";
  info.folder = folder.string();
  const auto shown = [](const fs::path& p) -> std::string { return p.empty() ? "(missing)" : p.string(); };
  info.files = {{"model", bin.string()},
                {"source vocabulary", text_files.source_vocab.string()},
                {"target vocabulary", text_files.target_vocab.string()},
                {"source SentencePiece", shown(text_files.source_spm)},
                {"target SentencePiece", shown(text_files.target_spm)}};
  info.missing = text_files.missing;
  // CTranslate2's translate defaults: <unk> allowed, </s> never as the first token.
  info.search_defaults = {{"allow-unk", "true"}, {"min-length", "1"}};
  info.search_defaults_source = "CTranslate2's decoding defaults";
  return parts;
}

}  // namespace s2s::formats
