// special:model.yml -> ModelConfig: Marian's defaults, block op strings, and one error listing
// every unsupported option.
#include "s2s/formats/marian.h"
#include "test_utils.h"

namespace s2s {

TEST_CASE("absent keys take Marian's defaults", "[formats]") {
  const model::ModelConfig c =
      formats::marian_config("type: transformer\ndim-vocabs: [100, 120]\n", "m");
  CHECK(c.d_model == 512);
  CHECK(c.heads == 8);
  CHECK(c.encoder_layers == 1);
  CHECK(c.encoder_ffn_dim == 2048);
  CHECK(c.decoder_ffn_dim == 2048);
  CHECK(c.activation == ops::Activation::swish);  // Marian's default, used by OPUS-MT
  CHECK_FALSE(c.pre_norm);
  CHECK(c.post_ops == std::vector<layers::PostOp>{layers::PostOp::add, layers::PostOp::norm});
  CHECK(c.layer_norm_epsilon == 1e-6f);
  CHECK(c.positions == layers::PositionEncoding::sinusoid_marian);
  CHECK(c.scale_embeddings);
  CHECK(c.output_bias);
  CHECK(c.decoder_start_id == -1);
  CHECK(c.source_vocab_size == 100);
  CHECK(c.target_vocab_size == 120);
}

TEST_CASE("pre-norm, decoder overrides, learned positions and tying are read", "[formats]") {
  const model::ModelConfig c = formats::marian_config(
      "type: transformer\ndim-vocabs:\n  - 50\n  - 50\ndim-emb: 32\ntransformer-heads: 4\n"
      "transformer-preprocess: n\ntransformer-postprocess: da\ntransformer-postprocess-emb: n\n"
      "transformer-postprocess-top: n\ntransformer-ffn-activation: relu\n"
      "transformer-decoder-dim-ffn: 64\ntransformer-decoder-ffn-depth: 3\n"
      "transformer-train-position-embeddings: true\ntied-embeddings-all: true\n"
      "output-omit-bias: true\n",
      "m");
  CHECK(c.pre_norm);
  CHECK(c.post_ops == std::vector<layers::PostOp>{layers::PostOp::add});
  CHECK(c.embedding_norm);
  CHECK(c.final_norm);
  CHECK(c.activation == ops::Activation::relu);
  CHECK(c.decoder_ffn_dim == 64);
  CHECK(c.decoder_ffn_depth == 3);
  CHECK(c.encoder_ffn_depth == 2);
  CHECK(c.positions == layers::PositionEncoding::learned);
  CHECK_FALSE(c.scale_embeddings);
  CHECK(c.shared_embeddings);
  CHECK(c.tied_output);
  CHECK_FALSE(c.output_bias);
}

TEST_CASE("every unsupported option is listed in one error", "[formats]") {
  try {
    formats::marian_config(
        "type: transformer\ndim-vocabs: [10, 10]\ntransformer-decoder-autoreg: rnn\n"
        "transformer-postprocess: dhn\nright-left: true\n",
        "model.npz");
    FAIL("no error");
  } catch (const ModelError& e) {
    const std::string m = e.what();
    CHECK(m.rfind("model.npz: ", 0) == 0);
    CHECK(m.find("transformer-decoder-autoreg") != std::string::npos);
    CHECK(m.find("operation 'h'") != std::string::npos);
    CHECK(m.find("right-left") != std::string::npos);
  }
  CHECK_THROWS_AS(formats::marian_config("type: amun\n", "m"), ModelError);
  CHECK_THROWS_AS(formats::marian_config("- not a map\n", "m"), ModelError);
  CHECK_THROWS_AS(formats::marian_config("type: [unclosed\n", "m"), ModelError);
}

}  // namespace s2s
