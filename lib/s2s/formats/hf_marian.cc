#include "s2s/formats/hf_marian.h"

#include <fstream>
#include <nlohmann/json.hpp>

#include "s2s/core/problems.h"
#include "s2s/formats/hf_common.h"
#include "s2s/formats/safetensors.h"

namespace s2s::formats {
namespace fs = std::filesystem;
using nlohmann::json;
using hf::map_attention;
using hf::map_linear;
using hf::map_norm;
using hf::read_json;
using hf::value;
namespace {

model::ModelConfig hf_config(const json& c, const fs::path& path,
                             std::vector<std::string>& problems) {
  model::ModelConfig m;
  m.architecture = "transformer (Hugging Face MarianMT)";
  m.alignment_note = "a Hugging Face MarianMT folder does not record which attention head was "
                     "trained for alignment (Marian's transformer-guided-alignment-layer); the "
                     "Marian or CTranslate2 form of the model does";
  if (value<std::string>(c, "model_type", "marian", path) != "marian")
    problems.push_back("model_type '" + c.value("model_type", std::string()) + "' is not marian");
  m.d_model = value<dim_t>(c, "d_model", 0, path);
  m.encoder_layers = value<dim_t>(c, "encoder_layers", 0, path);
  m.decoder_layers = value<dim_t>(c, "decoder_layers", 0, path);
  m.heads = value<dim_t>(c, "encoder_attention_heads", 0, path);
  if (value<dim_t>(c, "decoder_attention_heads", m.heads, path) != m.heads)
    problems.push_back("different encoder and decoder head counts are not supported");
  m.encoder_ffn_dim = value<dim_t>(c, "encoder_ffn_dim", 0, path);
  m.decoder_ffn_dim = value<dim_t>(c, "decoder_ffn_dim", 0, path);
  const std::string act = value<std::string>(c, "activation_function", "gelu", path);
  if (act == "swish" || act == "silu")
    m.activation = ops::Activation::swish;
  else if (act == "relu")
    m.activation = ops::Activation::relu;
  else if (act == "gelu")
    m.activation = ops::Activation::gelu;
  else
    problems.push_back("activation_function '" + act + "' is not supported (swish, silu, relu, gelu)");
  // Current MarianMT code hard-wires post-norm without embedding or final norms; legacy keys
  // that say otherwise describe a model it would not run as written.
  for (const char* key : {"normalize_before", "normalize_embedding", "add_final_layer_norm"})
    if (value<bool>(c, key, false, path)) problems.push_back(std::string(key) + " true is not supported");
  m.pre_norm = false;
  m.post_ops = {layers::PostOp::add, layers::PostOp::norm};
  m.layer_norm_epsilon = 1e-5f;  // torch.nn.LayerNorm's default
  m.positions = layers::PositionEncoding::sinusoid_hf;
  m.max_positions = 0;  // sinusoids are computed, not stored
  m.scale_embeddings = value<bool>(c, "scale_embedding", false, path);
  m.source_vocab_size = value<dim_t>(c, "vocab_size", 0, path);
  m.target_vocab_size = value<dim_t>(c, "decoder_vocab_size", m.source_vocab_size, path);
  m.shared_embeddings = value<bool>(c, "share_encoder_decoder_embeddings", true, path);
  m.tied_output = value<bool>(c, "tie_word_embeddings", true, path);
  m.decoder_start_id = value<std::int32_t>(c, "decoder_start_token_id", -1, path);
  m.eos_id = value<std::int32_t>(c, "eos_token_id", -1, path);
  const std::int32_t pad = value<std::int32_t>(c, "pad_token_id", -1, path);
  if (pad >= 0) m.suppressed_ids.push_back(pad);  // bad_words_ids = [[pad]]
  if (m.decoder_start_id < 0) problems.push_back("decoder_start_token_id is missing");
  return m;
}

}  // namespace

namespace {

// Reads every weight the config implies into canonical names; tied duplicates the file may or
// may not hold (save_pretrained drops them) are resolved here.
void load_weights(SafetensorsFile& st, model::ModelConfig& config, layers::WeightStore& w) {
  const auto has = [&](const std::string& n) { return st.contains(n); };
  // Embeddings: model.shared when shared, else the encoder's and decoder's own.
  const std::string shared = "model.shared.weight";
  const std::string enc_emb = "model.encoder.embed_tokens.weight";
  const std::string dec_emb = "model.decoder.embed_tokens.weight";
  if (config.shared_embeddings) {
    const std::string table = has(shared) ? shared : enc_emb;
    w.add("encoder/embeddings", st.read_tensor(table), ops::WeightLayout::in_out, table);
    w.alias("decoder/embeddings", "encoder/embeddings");
  } else {
    w.add("encoder/embeddings", st.read_tensor(has(enc_emb) ? enc_emb : shared),
          ops::WeightLayout::in_out, enc_emb);
    w.add("decoder/embeddings", st.read_tensor(dec_emb), ops::WeightLayout::in_out, dec_emb);
  }
  // Decoder layers are encoder layers with cross-attention after the self-attention.
  for (const std::string stack : {"encoder", "decoder"}) {
    const bool decoder = stack == "decoder";
    for (dim_t i = 0; i < (decoder ? config.decoder_layers : config.encoder_layers); ++i) {
      const std::string hf = "model." + stack + ".layers." + std::to_string(i);
      const std::string c = stack + "/layer_" + std::to_string(i);
      map_attention(w, st, hf + ".self_attn", c + "/self_attn");
      map_norm(w, st, hf + ".self_attn_layer_norm", c + "/self_attn/post_norm");
      if (decoder) {
        map_attention(w, st, hf + ".encoder_attn", c + "/cross_attn");
        map_norm(w, st, hf + ".encoder_attn_layer_norm", c + "/cross_attn/post_norm");
      }
      map_linear(w, st, hf + ".fc1", c + "/ffn/linear_0");
      map_linear(w, st, hf + ".fc2", c + "/ffn/linear_1");
      map_norm(w, st, hf + ".final_layer_norm", c + "/ffn/post_norm");
    }
  }
  if (!config.tied_output)
    w.add("decoder/output/weight", st.read_tensor("lm_head.weight"), ops::WeightLayout::out_in,
          "lm_head.weight");
  // final_logits_bias is a registered buffer [1, V]; models saved without it use zeros.
  config.output_bias = has("final_logits_bias");
  if (config.output_bias) {
    Tensor bias = st.read_tensor("final_logits_bias");
    bias.reshape({bias.numel()});
    w.add("decoder/output/bias", std::move(bias), ops::WeightLayout::in_out, "final_logits_bias");
  }
}

// Tensors the file may hold that the model does not need: tied copies and the static position
// tables older versions saved.
bool ignorable(const std::string& name, const model::ModelConfig& config) {
  if (name.find("embed_positions") != std::string::npos) return true;
  if (config.shared_embeddings &&
      (name == "model.encoder.embed_tokens.weight" || name == "model.decoder.embed_tokens.weight" ||
       name == "model.shared.weight"))
    return true;
  return config.tied_output && name == "lm_head.weight";
}

}  // namespace

bool looks_like_hf_marian(const fs::path& folder) {
  std::error_code ec;
  return fs::is_regular_file(folder / "config.json", ec) &&
         (fs::exists(folder / "model.safetensors", ec) ||
          fs::exists(folder / "pytorch_model.bin", ec));
}

ModelParts read_hf_marian(const fs::path& folder) {
  const fs::path config_path = folder / "config.json";
  const fs::path weights_path = folder / "model.safetensors";
  std::error_code ec;
  if (!fs::exists(weights_path, ec))
    throw ModelError(folder.string() + ": only pytorch_model.bin, no model.safetensors; s2s reads "
                     "safetensors (convert with transformers' save_pretrained(safe_serialization=True))");
  const json config_json = read_json(config_path);
  std::vector<std::string> problems;
  ModelParts parts;
  parts.config = hf_config(config_json, config_path, problems);
  throw_if_problems<ModelError>(config_path.string() + ": unsupported model", problems);

  SafetensorsFile st(weights_path.string());
  parts.weights = layers::WeightStore(weights_path.string());
  load_weights(st, parts.config, parts.weights);
  hf::check_all_used(
      st, parts.weights, [&](const std::string& name) { return ignorable(name, parts.config); },
      weights_path.string());

  // Tokenizer files: vocab.json for both sides unless the vocabularies are separate.
  bool separate = false;
  if (fs::exists(folder / "tokenizer_config.json", ec))
    separate = read_json(folder / "tokenizer_config.json").value("separate_vocabs", false);
  parts.source = {folder / "source.spm", folder / "vocab.json"};
  parts.target = {folder / "target.spm",
                  folder / (separate ? "target_vocab.json" : "vocab.json")};

  model::ModelInfo& info = parts.info;
  info.format = "hf-marian";
  info.folder = folder.string();
  info.files = {{"config", config_path.string()},
                {"weights", weights_path.string()},
                {"source vocabulary", parts.source.vocab.string()},
                {"target vocabulary", parts.target.vocab.string()},
                {"source SentencePiece", parts.source.spm.string()},
                {"target SentencePiece", parts.target.spm.string()}};
  hf::add_generation_defaults(folder, config_json, config_path, info);
  return parts;
}

}  // namespace s2s::formats
