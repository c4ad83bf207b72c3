#include "s2s/formats/hf_m2m100.h"

#include "s2s/core/problems.h"
#include "s2s/formats/hf_common.h"
#include "s2s/formats/safetensors_set.h"
#include "s2s/text/fairseq_vocab.h"

namespace s2s::formats {
namespace fs = std::filesystem;
using nlohmann::json;
using hf::value;
namespace {

// Keys of related configurations (BART, MarianMT, FSMT) that would change the math: M2M-100 has
// none of them (its layers are always pre-norm with final norms, its embeddings always shared).
constexpr const char* kForeignKeys[] = {
    "normalize_before", "normalize_embedding", "add_final_layer_norm", "layernorm_embedding",
    "static_position_embeddings", "share_encoder_decoder_embeddings", "decoder_vocab_size",
    "add_bias_logits", "extra_pos_embeddings", "scale_attention_softmax_in_fp32"};

ops::Activation activation_of(const std::string& name, std::vector<std::string>& problems) {
  if (name == "relu") return ops::Activation::relu;
  if (name == "gelu") return ops::Activation::gelu;
  if (name == "swish" || name == "silu") return ops::Activation::swish;
  problems.push_back("activation_function '" + name + "' is not supported (relu, gelu, swish, silu)");
  return ops::Activation::relu;
}

// config.json -> ModelConfig. Defaults are M2M100Config's (configuration_m2m_100.py __init__).
model::ModelConfig m2m100_config(const json& c, const fs::path& path,
                                 std::vector<std::string>& problems) {
  model::ModelConfig m;
  m.architecture = "transformer (Hugging Face M2M-100 / NLLB-200)";
  m.alignment_note = kFairseqNoAlignment;
  for (const char* key : kForeignKeys)
    if (c.contains(key))
      problems.push_back(std::string("'") + key + "' is not a setting of model_type m2m_100");
  m.d_model = value<dim_t>(c, "d_model", 1024, path);
  m.encoder_layers = value<dim_t>(c, "encoder_layers", 12, path);
  m.decoder_layers = value<dim_t>(c, "decoder_layers", 12, path);
  m.heads = value<dim_t>(c, "encoder_attention_heads", 16, path);
  if (value<dim_t>(c, "decoder_attention_heads", 16, path) != m.heads)
    problems.push_back("different encoder and decoder head counts are not supported");
  m.encoder_ffn_dim = value<dim_t>(c, "encoder_ffn_dim", 4096, path);
  m.decoder_ffn_dim = value<dim_t>(c, "decoder_ffn_dim", 4096, path);
  m.activation = activation_of(value<std::string>(c, "activation_function", "relu", path), problems);
  // M2M100EncoderLayer / DecoderLayer: residual + sublayer(LayerNorm(x)); then
  // M2M100Encoder / Decoder end with self.layer_norm.
  m.pre_norm = true;
  m.post_ops = {layers::PostOp::add};
  m.final_norm = true;
  m.embedding_norm = false;
  m.layer_norm_epsilon = 1e-5f;  // nn.LayerNorm's default
  // M2M100SinusoidalPositionalEmbedding.get_embedding (tensor2tensor's frequencies, as Marian's);
  // create_position_ids_from_input_ids numbers tokens from padding_idx + 1.
  m.positions = layers::PositionEncoding::sinusoid_marian;
  const dim_t pad = value<dim_t>(c, "pad_token_id", 1, path);
  m.position_offset = pad + 1;
  m.scale_embeddings = value<bool>(c, "scale_embedding", true, path);
  m.source_vocab_size = m.target_vocab_size = value<dim_t>(c, "vocab_size", 128112, path);
  m.shared_embeddings = true;  // M2M100Model.shared is both stacks' embed_tokens
  m.tied_output = value<bool>(c, "tie_word_embeddings", true, path);
  m.output_bias = false;       // lm_head = nn.Linear(d_model, vocab_size, bias=False)
  m.decoder_start_id = value<std::int32_t>(c, "decoder_start_token_id", 2, path);
  m.eos_id = value<std::int32_t>(c, "eos_token_id", 2, path);
  return m;
}

void load_weights(const SafetensorsSet& st, const model::ModelConfig& config,
                  layers::WeightStore& w) {
  std::string table = "model.shared.weight";
  for (const char* name : {"model.encoder.embed_tokens.weight", "model.decoder.embed_tokens.weight"})
    if (!st.contains(table) && st.contains(name)) table = name;
  w.add("encoder/embeddings", st.read_tensor(table), ops::WeightLayout::in_out, table);
  w.alias("decoder/embeddings", "encoder/embeddings");
  for (const std::string stack : {"encoder", "decoder"}) {
    const bool decoder = stack == "decoder";
    for (dim_t i = 0; i < (decoder ? config.decoder_layers : config.encoder_layers); ++i) {
      const std::string h = "model." + stack + ".layers." + std::to_string(i);
      const std::string c = stack + "/layer_" + std::to_string(i);
      hf::map_attention(w, st, h + ".self_attn", c + "/self_attn");
      hf::map_norm(w, st, h + ".self_attn_layer_norm", c + "/self_attn/pre_norm");
      if (decoder) {
        hf::map_attention(w, st, h + ".encoder_attn", c + "/cross_attn");
        hf::map_norm(w, st, h + ".encoder_attn_layer_norm", c + "/cross_attn/pre_norm");
      }
      hf::map_linear(w, st, h + ".fc1", c + "/ffn/linear_0");
      hf::map_linear(w, st, h + ".fc2", c + "/ffn/linear_1");
      hf::map_norm(w, st, h + ".final_layer_norm", c + "/ffn/pre_norm");
    }
    hf::map_norm(w, st, "model." + stack + ".layer_norm", stack + "/final_norm");
  }
  if (!config.tied_output)
    w.add("decoder/output/weight", st.read_tensor("lm_head.weight"), ops::WeightLayout::out_in,
          "lm_head.weight");
}

// Tensors a file may hold that the model does not read: the sinusoid tables older versions
// saved (embed_positions.weights) and tied copies of the shared embedding.
bool ignorable(const std::string& name, const model::ModelConfig& config) {
  if (name.find("embed_positions") != std::string::npos) return true;
  if (name == "model.shared.weight" || name == "model.encoder.embed_tokens.weight" ||
      name == "model.decoder.embed_tokens.weight")
    return true;
  return config.tied_output && name == "lm_head.weight";
}

// The tokenizer files' settings: tokenizer_config.json over special_tokens_map.json.
json tokenizer_settings(const fs::path& folder) {
  json settings = json::object();
  std::error_code ec;
  for (const char* file : {"special_tokens_map.json", "tokenizer_config.json"})
    if (fs::is_regular_file(folder / file, ec)) {
      const json part = hf::read_json(folder / file);
      if (part.is_object()) settings.update(part);
    }
  return settings;
}

// NLLB's language tokens: its additional_special_tokens (strings or {"content": ...}), else
// FAIRSEQ_LANGUAGE_CODES (NllbTokenizer's default).
std::vector<std::string> nllb_tokens(const json& settings) {
  std::vector<std::string> tokens;
  const auto it = settings.find("additional_special_tokens");
  if (it != settings.end() && it->is_array())
    for (const json& t : *it) {
      if (t.is_string()) tokens.push_back(t.get<std::string>());
      else if (t.is_object() && t.contains("content")) tokens.push_back(t["content"].get<std::string>());
    }
  return tokens.empty() ? text::nllb_language_codes() : tokens;
}

// M2M-100: FAIRSEQ_LANGUAGE_CODES[language_codes] as __xx__ tokens, in that order (their ids).
std::vector<std::string> m2m100_tokens(const json& settings, const fs::path& folder) {
  const std::string set = settings.value("language_codes", std::string("m2m100"));
  std::vector<std::string> codes;
  if (set == "m2m100") codes = text::m2m100_language_codes();
  else if (set == "wmt21") codes = {"en", "ha", "is", "ja", "cs", "ru", "zh", "de"};
  else throw ModelError((folder / "tokenizer_config.json").string() + ": language_codes '" + set +
                        "' is not m2m100 or wmt21");
  for (std::string& code : codes) code = "__" + code + "__";
  return codes;
}

// added_tokens_decoder ({"<id>": {"content": token}}), when the tokenizer files have it, must
// number the tokens as the rule does.
void check_added_tokens(const json& settings, const text::Vocabulary& vocab, const fs::path& folder) {
  const auto it = settings.find("added_tokens_decoder");
  if (it == settings.end() || !it->is_object()) return;
  for (const auto& [id, token] : it->items()) {
    const std::string content = token.is_object() ? token.value("content", std::string()) : "";
    if (!content.empty() && !vocab.contains(content))
      throw ModelError((folder / "tokenizer_config.json").string() + ": added token '" + content +
                       "' (id " + id + ") is none of the tokenizer's tokens (a language token "
                       "missing from additional_special_tokens?)");
    if (content.empty() || std::to_string(vocab.id_of(content)) != id)
      throw ModelError((folder / "tokenizer_config.json").string() + ": added token " +
                       token.dump() + " has id " + id + ", not the id its tokenizer gives it");
  }
}

std::unique_ptr<text::TextCodec> fairseq_codec(const fs::path& folder, dim_t vocab_size,
                                               const fs::path& config_path, bool& nllb,
                                               model::ModelInfo& info) {
  const json settings = tokenizer_settings(folder);
  const fs::path spm_path = folder / "sentencepiece.bpe.model";
  const fs::path dict_path = folder / "vocab.json";
  std::error_code ec;
  const std::string tokenizer = settings.value("tokenizer_class", std::string());
  nllb = tokenizer.rfind("Nllb", 0) == 0 || !fs::exists(dict_path, ec);
  if (!fs::exists(spm_path, ec)) throw ModelError(spm_path.string() + ": not found");
  text::SentencePiece spm = text::SentencePiece::load(spm_path.string());
  text::LanguageTokens languages;
  languages.family = nllb ? text::LanguageFamily::nllb : text::LanguageFamily::m2m100;
  languages.tokens = nllb ? nllb_tokens(settings) : m2m100_tokens(settings, folder);
  languages.source_after_eos = nllb && settings.value("legacy_behaviour", false);
  text::Vocabulary vocab =
      nllb ? text::nllb_vocabulary(spm, languages.tokens, vocab_size, config_path.string())
           : text::m2m100_vocabulary(dict_path.string(), languages.tokens, vocab_size,
                                     config_path.string());
  check_added_tokens(settings, vocab, folder);
  info.files.emplace_back("SentencePiece", spm_path.string());
  if (!nllb) info.files.emplace_back("vocabulary", dict_path.string());
  auto codec = std::make_unique<text::TextCodec>(text::SentencePiece::load(spm_path.string()), vocab,
                                                 std::move(spm), vocab);
  codec->set_languages(std::move(languages));
  return codec;
}

}  // namespace

bool looks_like_hf_m2m100(const fs::path& folder) {
  std::error_code ec;
  if (!fs::is_regular_file(folder / "config.json", ec)) return false;
  try {
    const json config = hf::read_json(folder / "config.json");
    return config.is_object() && config.value("model_type", std::string()) == "m2m_100";
  } catch (const std::exception&) {
    return false;  // the Hugging Face MarianMT reader names the problem
  }
}

text::LanguageTokens converted_languages(const fs::path& folder, const text::Vocabulary& vocab,
                                         const fs::path& spm_path) {
  std::vector<std::string> tokens;
  for (int id = 0; id < vocab.size(); ++id) tokens.push_back(vocab.piece(id));
  std::optional<text::SentencePiece> spm;
  if (!spm_path.empty()) spm = text::SentencePiece::load(spm_path.string());
  text::LanguageTokens languages =
      text::languages_in_vocabulary(tokens, [&](const std::string& token) {
        return spm && spm->is_text_piece(spm->id_of(token));
      });
  // Tokenizer files copied beside model.bin name the languages the vocabulary must have.
  const json settings = tokenizer_settings(folder);
  if (settings.contains("additional_special_tokens"))
    for (const std::string& token : nllb_tokens(settings))
      if (!vocab.contains(token))
        throw ModelError(vocab.path() + ": no token '" + token + "', which the tokenizer files' "
                         "additional_special_tokens name (a language the model cannot have)");
  languages.source_after_eos = languages.family == text::LanguageFamily::nllb &&
                               settings.value("legacy_behaviour", false);
  return languages;
}

ModelParts read_hf_m2m100(const fs::path& folder) {
  const fs::path config_path = folder / "config.json";
  const json config_json = hf::read_json(config_path);
  std::vector<std::string> problems;
  ModelParts parts;
  parts.config = m2m100_config(config_json, config_path, problems);
  throw_if_problems<ModelError>(config_path.string() + ": unsupported model", problems);

  const SafetensorsSet st(folder);
  parts.weights = layers::WeightStore(st.path());
  load_weights(st, parts.config, parts.weights);
  hf::check_all_used(
      st, parts.weights, [&](const std::string& name) { return ignorable(name, parts.config); },
      st.path());

  model::ModelInfo& info = parts.info;
  info.folder = folder.string();
  info.files = {{"config", config_path.string()}, {"weights", st.path()}};
  bool nllb = false;
  parts.codec = fairseq_codec(folder, parts.config.source_vocab_size, config_path, nllb, info);
  info.format = nllb ? "hf-nllb" : "hf-m2m100";
  parts.config.architecture = nllb ? "transformer (Hugging Face NLLB-200, M2M100ForConditionalGeneration)"
                                   : "transformer (Hugging Face M2M-100)";
  hf::add_generation_defaults(folder, config_json, config_path, info);
  return parts;
}

}  // namespace s2s::formats
