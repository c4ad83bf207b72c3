// Marian parameter names -> canonical names (model-formats.md §1.1-1.3). Every tensor the
// config implies is declared first; the archive must hold exactly those.
#include <map>
#include <set>

#include "s2s/core/problems.h"
#include "s2s/formats/marian.h"
#include "s2s/formats/npz.h"

namespace s2s::formats {
namespace {

// Marian name -> (canonical name, how to store it).
struct Target {
  std::string canonical;
  enum Kind { matrix, row, transposed } kind;  // row: [1, N] -> [N]; transposed: stored [out, in]
};
using Plan = std::map<std::string, Target>;

void norm(Plan& plan, const std::string& marian_prefix, const std::string& canonical) {
  plan[marian_prefix + "_ln_scale"] = {canonical + "/scale", Target::row};
  plan[marian_prefix + "_ln_bias"] = {canonical + "/bias", Target::row};
}

void linear(Plan& plan, const std::string& w, const std::string& b, const std::string& canonical) {
  plan[w] = {canonical + "/weight", Target::matrix};
  plan[b] = {canonical + "/bias", Target::row};
}

// The norms Marian's block wrapper creates for one sub-layer: `_pre` for the pre-processing norm,
// no suffix for the post-processing one (transformer.h:180 vs :207).
void block_norms(Plan& plan, const model::ModelConfig& c, const std::string& marian_prefix,
                 const std::string& block) {
  if (c.pre_norm) {
    plan[marian_prefix + "_ln_scale_pre"] = {block + "/pre_norm/scale", Target::row};
    plan[marian_prefix + "_ln_bias_pre"] = {block + "/pre_norm/bias", Target::row};
  }
  for (layers::PostOp op : c.post_ops)
    if (op == layers::PostOp::norm) norm(plan, marian_prefix, block + "/post_norm");
}

void attention(Plan& plan, const model::ModelConfig& c, const std::string& m,
               const std::string& block) {
  for (const char* x : {"q", "k", "v", "o"})
    linear(plan, m + "_W" + x, m + "_b" + x, block + "/" + x);
  block_norms(plan, c, m + "_Wo", block);
}

void ffn(Plan& plan, const model::ModelConfig& c, const std::string& m, const std::string& block,
         int depth) {
  for (int k = 0; k < depth; ++k)
    linear(plan, m + "_W" + std::to_string(k + 1), m + "_b" + std::to_string(k + 1),
           block + "/linear_" + std::to_string(k));
  block_norms(plan, c, m + "_ffn", block);
}

Plan make_plan(const model::ModelConfig& c, const std::set<std::string>& present) {
  Plan plan;
  if (c.shared_embeddings) {
    plan["Wemb"] = {"encoder/embeddings", Target::matrix};
  } else {
    plan["encoder_Wemb"] = {"encoder/embeddings", Target::matrix};
    plan["decoder_Wemb"] = {"decoder/embeddings", Target::matrix};
  }
  if (c.positions == layers::PositionEncoding::learned)
    plan["Wpos"] = {"positions", Target::matrix};
  for (const char* stack : {"encoder", "decoder"}) {
    const std::string s = stack;
    if (c.embedding_norm) {
      plan[s + "_emb_ln_scale_pre"] = {s + "/emb_norm/scale", Target::row};
      plan[s + "_emb_ln_bias_pre"] = {s + "/emb_norm/bias", Target::row};
    }
    if (c.final_norm) norm(plan, s + "_top", s + "/final_norm");
  }
  for (dim_t i = 0; i < c.encoder_layers; ++i) {
    const std::string m = "encoder_l" + std::to_string(i + 1);  // Marian layers are 1-based
    const std::string p = "encoder/layer_" + std::to_string(i);
    attention(plan, c, m + "_self", p + "/self_attn");
    ffn(plan, c, m + "_ffn", p + "/ffn", c.encoder_ffn_depth);
  }
  for (dim_t i = 0; i < c.decoder_layers; ++i) {
    const std::string m = "decoder_l" + std::to_string(i + 1);
    const std::string p = "decoder/layer_" + std::to_string(i);
    attention(plan, c, m + "_self", p + "/self_attn");
    attention(plan, c, m + "_context", p + "/cross_attn");
    ffn(plan, c, m + "_ffn", p + "/ffn", c.decoder_ffn_depth);
  }
  if (c.output_bias) plan["decoder_ff_logit_out_b"] = {"decoder/output/bias", Target::row};
  if (!c.tied_output) {
    // Current Marian writes _Wt [V, D]; older versions _W [D, V] (layers/output.cpp:48-54).
    if (present.count("decoder_ff_logit_out_W"))
      plan["decoder_ff_logit_out_W"] = {"decoder/output/weight", Target::matrix};
    else
      plan["decoder_ff_logit_out_Wt"] = {"decoder/output/weight", Target::transposed};
  }
  return plan;
}

}  // namespace

void load_marian_weights(const std::filesystem::path& npz, model::ModelConfig& config,
                         layers::WeightStore& weights) {
  NpzArchive archive(npz.string());
  std::set<std::string> present;
  for (const std::string& name : archive.names())
    if (name.rfind("special:", 0) != 0) present.insert(name);

  const Plan plan = make_plan(config, present);
  std::vector<std::string> missing, unexpected, problems;
  for (const auto& [name, target] : plan)
    if (!present.count(name)) missing.push_back(name);
  for (const std::string& name : present)
    if (!plan.count(name)) unexpected.push_back(name);
  if (!missing.empty()) problems.push_back("missing " + join(missing, ", ", 8));
  if (!unexpected.empty()) problems.push_back("unexpected " + join(unexpected, ", ", 8));
  throw_if_problems<ModelError>(npz.string() + ": tensors do not match special:model.yml",
                                problems);

  for (const auto& [name, target] : plan) {
    Tensor t = archive.read_tensor(name);
    if (t.dtype() != DataType::f32)
      throw ModelError(npz.string() + ": tensor '" + name + "' has type " + dtype_name(t.dtype()) +
                       ", expected float32 or float16");
    if (target.kind == Target::row) {
      if (t.rank() != 2 || t.dim(0) != 1)
        throw ModelError(npz.string() + ": tensor '" + name + "' has shape " +
                         to_string(t.shape()) + ", expected [1, N]");
      t.reshape({t.dim(1)});
    }
    if (target.canonical == "positions") config.max_positions = t.dim(0);
    weights.add(target.canonical, std::move(t),
                target.kind == Target::transposed ? ops::WeightLayout::out_in
                                                  : ops::WeightLayout::in_out,
                name);
  }
  if (config.shared_embeddings) weights.alias("decoder/embeddings", "encoder/embeddings");
}

}  // namespace s2s::formats
