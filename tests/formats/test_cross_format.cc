// The same weights in three formats (tools/fixtures: hf-marian-tied and ct2-marian are
// conversions of marian-postnorm-swish-tiedall). The test shows exactly where the formats'
// semantics differ: HF and CTranslate2 compute the same logits; Marian differs from them only
// by its positional formula and layer-norm epsilon, since the Marian weights loaded with those
// two fields set the HF way give the HF logits.
#include "fixtures.h"
#include "s2s/batch/batch.h"
#include "support/model_support.h"
#include "s2s/formats/marian.h"
#include "s2s/formats/npz.h"

namespace s2s {
namespace {

const std::string kMarian = "marian-postnorm-swish-tiedall";

// Teacher-forced logits of the golden sentences of `golden_name` under `model`.
Tensor logits_of(const model::Model& model, const std::string& golden_name) {
  formats::NpzArchive golden(test::data_path("golden/" + golden_name + ".npz"));
  const Tensor src = golden.read_tensor("src_ids"), tgt = golden.read_tensor("tgt_ids");
  const Tensor src_len = golden.read_tensor("src_lengths");
  const std::vector<std::int32_t> lengths(src_len.data<std::int32_t>(),
                                          src_len.data<std::int32_t>() + src_len.numel());
  const model::EncoderOutput encoded = test::encode(model.encoder(), src, lengths);
  Tensor logits;
  test::forward_all(model.decoder(), encoded, tgt, logits);
  return logits;
}

// The Marian fixture loaded as the Marian loader does, with `change` applied to its config.
template <typename Change>
std::shared_ptr<const model::Model> marian_with(Change change) {
  const auto files = formats::find_marian_files(test::data_path("models/" + kMarian));
  formats::NpzArchive npz(files.model.string());
  model::ModelConfig config = formats::marian_config(npz.read_text("special:model.yml"), "fixture");
  layers::WeightStore weights(files.model.string());
  formats::load_marian_weights(files.model, config, weights);
  auto codec = std::make_unique<text::TextCodec>(text::TextCodec::load(
      files.source_spm.string(), files.source_vocab.string(), config.source_vocab_size,
      files.target_spm.string(), files.target_vocab.string(), config.target_vocab_size));
  config.source_eos_id = codec->source_vocab().eos_id();
  config.eos_id = codec->target_vocab().eos_id();
  config.unk_id = codec->target_vocab().unk_id();
  change(config);
  return std::make_shared<const model::Model>(config, std::move(weights), std::move(codec),
                                              model::ModelInfo{});
}

}  // namespace

TEST_CASE("HF, CTranslate2 and Marian differ only where their semantics differ", "[formats][parity]") {
  const auto hf = test::load_fixture(test::all_fixtures()[4]);   // hf-marian-tied
  const auto ct2 = test::load_fixture(test::all_fixtures()[8]);  // ct2-marian
  REQUIRE(hf->info().format == "hf-marian");
  REQUIRE(ct2->info().format == "ctranslate2");
  const Tensor hf_logits = logits_of(*hf, kMarian);  // same sentences and target ids
  const dim_t vocab = hf_logits.dim(2) - 1;          // HF appends a pad column

  // CTranslate2's conversion keeps HF's semantics: the same logits (without the pad column).
  const Tensor hf_no_pad = hf_logits.slice(2, 0, vocab).clone();
  S2S_CHECK_CLOSE(logits_of(*ct2, kMarian), hf_no_pad, 1e-4);  // float32 rounding only

  // Marian's own semantics give other logits...
  const auto marian = marian_with([](model::ModelConfig&) {});
  CHECK(test::compare(logits_of(*marian, kMarian), hf_no_pad).max_rel_error > 1e-3);
  // ...and exactly the HF ones once the positional formula and the epsilon are HF's.
  const auto marian_as_hf = marian_with([](model::ModelConfig& c) {
    c.positions = layers::PositionEncoding::sinusoid_hf;
    c.layer_norm_epsilon = 1e-5f;
  });
  S2S_CHECK_CLOSE(logits_of(*marian_as_hf, kMarian), hf_no_pad, 1e-4);

  // The pad column HF adds has zero weight and bias, and is never generated.
  CHECK(hf->config().suppressed_ids == std::vector<std::int32_t>{static_cast<std::int32_t>(vocab)});
  CHECK(hf->config().decoder_start_id == vocab);
  CHECK(marian->config().decoder_start_id == -1);
}

}  // namespace s2s
