// Marian parameter names -> canonical names (docs/models.md, "Marian / OPUS-MT"). Every tensor the
// config implies is declared first; the archive must hold exactly those.
#include <exception>
#include <map>
#include <set>
#include <vector>

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

// The plan's tensors in plan order, read by all threads: each read checks the entry's CRC and
// copies it out of the mapping, and a Transformer-base archive is 240 MB of it. Dynamic
// scheduling, so that a thread the machine's other work holds back delays only its own entries.
// The first failing entry in plan order is the error, as a sequential read would report it.
std::vector<Tensor> read_in_parallel(const NpzArchive& archive, const Plan& plan) {
  std::vector<const std::string*> names;
  for (const auto& entry : plan) names.push_back(&entry.first);
  const auto count = static_cast<std::ptrdiff_t>(names.size());
  std::vector<Tensor> tensors(names.size());
  std::vector<std::exception_ptr> errors(names.size());
#pragma omp parallel for schedule(dynamic, 1)
  for (std::ptrdiff_t i = 0; i < count; ++i) {
    try {
      tensors[static_cast<std::size_t>(i)] = archive.read_tensor(*names[static_cast<std::size_t>(i)]);
    } catch (...) {
      errors[static_cast<std::size_t>(i)] = std::current_exception();
    }
  }
  for (const std::exception_ptr& error : errors)
    if (error) std::rethrow_exception(error);
  return tensors;
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

  std::vector<Tensor> tensors = read_in_parallel(archive, plan);
  std::size_t i = 0;
  for (const auto& [name, target] : plan) {
    Tensor t = std::move(tensors[i++]);
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
