// special:model.yml -> ModelConfig (docs/models.md, "Marian / OPUS-MT"). Defaults are Marian's for
// absent keys.
#include <yaml-cpp/yaml.h>

#include "s2s/formats/marian.h"

#include "s2s/core/problems.h"

namespace s2s::formats {
namespace {

// Reads keys with Marian's defaults and collects every problem instead of stopping at the first.
class Options {
 public:
  Options(const YAML::Node& root, std::vector<std::string>& problems)
      : root_(root), problems_(problems) {}

  template <typename T>
  T get(const char* key, T fallback) {
    const YAML::Node node = root_[key];
    if (!node || node.IsNull()) return fallback;
    try {
      return node.as<T>();
    } catch (const YAML::Exception&) {
      problems_.push_back(std::string("option '") + key + "' has an unreadable value");
      return fallback;
    }
  }

  std::vector<dim_t> get_list(const char* key) {
    const YAML::Node node = root_[key];
    std::vector<dim_t> values;
    if (!node || !node.IsSequence()) return values;
    for (const auto& item : node) {
      try {
        values.push_back(item.as<dim_t>());
      } catch (const YAML::Exception&) {
        problems_.push_back(std::string("option '") + key + "' has an unreadable entry");
      }
    }
    return values;
  }

  // A feature we cannot run: the option must be absent or have its neutral value.
  template <typename T>
  void require(const char* key, T neutral, const std::string& why) {
    if (get<T>(key, neutral) != neutral)
      problems_.push_back(std::string("option '") + key + "' is not supported: " + why);
  }

 private:
  const YAML::Node& root_;
  std::vector<std::string>& problems_;
};

// "dan" -> {add, norm}; d (dropout) is a no-op at inference.
std::vector<layers::PostOp> parse_post_ops(const std::string& ops, const char* key,
                                           std::vector<std::string>& problems) {
  std::vector<layers::PostOp> result;
  int norms = 0;
  for (char c : ops) {
    if (c == 'd') continue;
    if (c == 'a') {
      result.push_back(layers::PostOp::add);
    } else if (c == 'n') {
      result.push_back(layers::PostOp::norm);
      ++norms;
    } else {
      problems.push_back(std::string("option '") + key + "' = '" + ops + "': operation '" + c +
                         "' is not supported (only d, a, n)");
    }
  }
  if (norms > 1)
    problems.push_back(std::string("option '") + key + "' = '" + ops + "' normalises twice");
  return result;
}

// Pre-processing and embedding/top strings may only hold d and n: returns whether n is there.
bool parse_norm_only(const std::string& ops, const char* key, std::vector<std::string>& problems) {
  bool norm = false;
  for (char c : ops) {
    if (c == 'n')
      norm = true;
    else if (c != 'd')
      problems.push_back(std::string("option '") + key + "' = '" + ops + "': operation '" + c +
                         "' is not supported here (only d, n)");
  }
  return norm;
}

ops::Activation parse_activation(const std::string& name, std::vector<std::string>& problems) {
  if (name == "swish") return ops::Activation::swish;
  if (name == "relu") return ops::Activation::relu;
  if (name == "gelu") return ops::Activation::gelu;
  if (name.empty()) return ops::Activation::identity;
  problems.push_back("option 'transformer-ffn-activation' = '" + name +
                     "' is not supported (swish, relu, gelu)");
  return ops::Activation::identity;
}

// Sizes: vocabularies, width, depth, heads, feed-forward layers.
void read_sizes(Options& opt, model::ModelConfig& c, std::vector<std::string>& problems) {
  const std::vector<dim_t> vocabs = opt.get_list("dim-vocabs");
  if (vocabs.size() != 2)
    problems.push_back("option 'dim-vocabs' must list two sizes");
  else {
    c.source_vocab_size = vocabs[0];
    c.target_vocab_size = vocabs[1];
  }
  c.d_model = opt.get<dim_t>("dim-emb", 512);
  c.encoder_layers = opt.get<dim_t>("enc-depth", 1);
  c.decoder_layers = opt.get<dim_t>("dec-depth", 1);
  c.heads = opt.get<dim_t>("transformer-heads", 8);
  c.encoder_ffn_dim = opt.get<dim_t>("transformer-dim-ffn", 2048);
  const dim_t decoder_ffn = opt.get<dim_t>("transformer-decoder-dim-ffn", 0);
  c.decoder_ffn_dim = decoder_ffn != 0 ? decoder_ffn : c.encoder_ffn_dim;
  c.encoder_ffn_depth = opt.get<int>("transformer-ffn-depth", 2);
  const int decoder_depth = opt.get<int>("transformer-decoder-ffn-depth", 0);
  c.decoder_ffn_depth = decoder_depth != 0 ? decoder_depth : c.encoder_ffn_depth;
  c.activation = parse_activation(opt.get<std::string>("transformer-ffn-activation", "swish"),
                                  problems);
}

// What surrounds each layer (Marian's d/a/n letters), and the position encoding.
void read_layer_shape(Options& opt, model::ModelConfig& c, std::vector<std::string>& problems) {
  c.pre_norm = parse_norm_only(opt.get<std::string>("transformer-preprocess", ""),
                               "transformer-preprocess", problems);
  c.post_ops = parse_post_ops(opt.get<std::string>("transformer-postprocess", "dan"),
                              "transformer-postprocess", problems);
  c.embedding_norm = parse_norm_only(opt.get<std::string>("transformer-postprocess-emb", "d"),
                                     "transformer-postprocess-emb", problems);
  c.final_norm = parse_norm_only(opt.get<std::string>("transformer-postprocess-top", ""),
                                 "transformer-postprocess-top", problems);
  c.layer_norm_epsilon = 1e-6f;  // hard-coded in Marian (layers/generic.h)

  if (opt.get<bool>("transformer-disable-position-embeddings", false)) {
    c.positions = layers::PositionEncoding::none;
  } else if (opt.get<bool>("transformer-train-position-embeddings", false)) {
    c.positions = layers::PositionEncoding::learned;  // table size comes from Wpos
    c.scale_embeddings = false;               // Marian does not scale with learned positions
  } else {
    c.positions = layers::PositionEncoding::sinusoid_marian;
  }
}

// Marian writes this key into every model ("last" by default) and aligns with head 0 of that
// layer for any model (transformer.h collectOneHead); it does not record whether training
// guided that head, so neither can s2s.
void read_alignment_layer(Options& opt, model::ModelConfig& c) {
  const std::string align = opt.get<std::string>("transformer-guided-alignment-layer", "last");
  if (align == "last") {
    c.alignment_layer = c.decoder_layers - 1;
  } else if (!align.empty() && align.find_first_not_of("0123456789") == std::string::npos &&
             align.size() < 9 && std::stol(align) >= 1 && std::stol(align) <= c.decoder_layers) {
    c.alignment_layer = std::stol(align) - 1;
  } else {
    c.alignment_note = "its transformer-guided-alignment-layer '" + align +
                       "' names no decoder layer (1.." + std::to_string(c.decoder_layers) +
                       " or last)";
  }
}

// Options that would change the computation in ways s2s does not implement.
void refuse_unsupported(Options& opt, std::vector<std::string>& problems) {
  opt.require<bool>("transformer-no-projection", false, "attention without output projection");
  opt.require<std::string>("transformer-decoder-autoreg", "self-attention",
                           "only self-attention decoders are supported (not average-attention or rnn)");
  opt.require<std::string>("transformer-attention-mask", "default", "alibi masks");
  opt.require<bool>("right-left", false, "right-to-left models");
  opt.require<dim_t>("lemma-dim-emb", 0, "factored vocabularies");
  opt.require<dim_t>("factors-dim-emb", 0, "factored vocabularies");
  opt.require<bool>("ulr", false, "universal lexical representations");
  if (!opt.get_list("transformer-tied-layers").empty())
    problems.push_back("option 'transformer-tied-layers' is not supported");
}

}  // namespace

model::ModelConfig marian_config(const std::string& model_yml, const std::string& source) {
  YAML::Node root;
  try {
    root = YAML::Load(model_yml);
  } catch (const YAML::Exception& e) {
    throw ModelError(source + ": special:model.yml is not valid YAML: " + e.what());
  }
  if (!root.IsMap()) throw ModelError(source + ": special:model.yml is not a YAML mapping");

  std::vector<std::string> problems;
  Options opt(root, problems);
  model::ModelConfig c;
  const std::string type = opt.get<std::string>("type", "amun");
  if (type != "transformer")
    problems.push_back("model type '" + type + "' is not supported (only transformer)");
  read_sizes(opt, c, problems);
  read_layer_shape(opt, c, problems);
  const bool tied_all = opt.get<bool>("tied-embeddings-all", false);
  c.shared_embeddings = tied_all || opt.get<bool>("tied-embeddings-src", false);
  c.tied_output = tied_all || opt.get<bool>("tied-embeddings", false);
  c.output_bias = !opt.get<bool>("output-omit-bias", false);
  read_alignment_layer(opt, c);
  c.decoder_start_id = -1;  // Marian starts decoding from an all-zero embedding
  refuse_unsupported(opt, problems);
  throw_if_problems<ModelError>(source + ": unsupported or invalid model (special:model.yml)",
                                problems);
  return c;
}

}  // namespace s2s::formats
