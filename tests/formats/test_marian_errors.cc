// Broken Marian folders are refused at load with one ModelError line that names the file and
// what is wrong (docs/user-guide.md, "Guarantees").
#include <filesystem>
#include <fstream>

#include "app/cli_runner.h"
#include "s2s/formats/detect.h"
#include "test_utils.h"

namespace s2s {
namespace fs = std::filesystem;
namespace {

const char* const kGood = "marian-postnorm-swish-tiedall";
const char* const kModelFile = "opus.spm32k-spm32k.transformer-align.model1.npz.best-perplexity.npz";

// A private copy of the good fixture that a test may break.
fs::path copy_good() {
  const fs::path dir = test::temp_dir("broken");
  fs::copy(test::data_path(std::string("models/") + kGood), dir, fs::copy_options::recursive);
  return dir;
}

// The ModelError message from loading `dir`, or "" if it loaded.
std::string load_error(const fs::path& dir) {
  try {
    formats::load_model(dir.string());
  } catch (const ModelError& e) {
    return e.what();
  }
  return "";
}

void write(const fs::path& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
}

bool contains(const std::string& haystack, const std::string& needle) {
  return haystack.find(needle) != std::string::npos;
}

}  // namespace

TEST_CASE("broken tensors in the npz are named", "[formats][errors]") {
  const struct {
    const char* variant;
    const char* expected;
  } cases[] = {
      {"wrong_shape", "weight 'encoder_l1_self_Wq' (encoder/layer_0/self_attn/q/weight) has shape [16, 17], expected [16, 16]"},
      {"missing_tensor", "missing decoder_l1_ffn_W2"},
      {"extra_tensor", "unexpected encoder_l9_self_Wq"},
      {"int_weights", "'Wemb' has type int32"},
      {"bad_activation", "transformer-ffn-activation' = 'tanh'"},
      {"rnn_decoder", "transformer-decoder-autoreg' is not supported"},
      {"no_model_yml", "no special:model.yml"},
  };
  for (const auto& c : cases) {
    SECTION(c.variant) {
      const fs::path dir = copy_good();
      fs::copy_file(test::data_path(std::string("broken/") + c.variant + ".npz"), dir / kModelFile,
                    fs::copy_options::overwrite_existing);
      const std::string error = load_error(dir);
      INFO(error);
      CHECK(contains(error, (dir / kModelFile).string()));
      CHECK(contains(error, c.expected));
      CHECK(error.find('\n') == std::string::npos);
      fs::remove_all(dir);
    }
  }
}

TEST_CASE("broken files in a model folder give one-line errors", "[formats][errors]") {
  const fs::path dir = copy_good();
  const fs::path model = dir / kModelFile;
  SECTION("truncated npz") {
    const std::string bytes = test::read_file(model);
    for (std::size_t cut : {bytes.size() / 2, bytes.size() - 1, std::size_t{10}}) {
      write(model, bytes.substr(0, cut));
      const std::string error = load_error(dir);
      INFO("cut at " << cut << ": " << error);
      CHECK(contains(error, model.string()));
    }
  }
  SECTION("random bytes instead of the npz") {
    write(model, std::string(4096, '\x5a'));
    CHECK(contains(load_error(dir), model.string()));
  }
  SECTION("missing model file") {
    fs::remove(model);
    const std::string error = load_error(dir);
    CHECK(contains(error, model.string()));
    CHECK(contains(error, "not found"));
  }
  SECTION("missing vocabulary") {
    fs::remove(dir / "opus.spm32k-spm32k.vocab.yml");
    CHECK(contains(load_error(dir), "opus.spm32k-spm32k.vocab.yml"));
  }
  SECTION("source.spm that is not a SentencePiece model") {
    write(dir / "source.spm", "this is not a sentencepiece model");
    CHECK(contains(load_error(dir), (dir / "source.spm").string()));
  }
  SECTION("a vocabulary that does not match the SentencePiece models") {
    write(dir / "opus.spm32k-spm32k.vocab.yml", "</s>: 0\n<unk>: 1\n\"\u2581the\": 2\n");
    const std::string error = load_error(dir);
    CHECK(contains(error, "SentencePiece model does not belong to this vocabulary"));
    CHECK(contains(error, "of its 248 pieces have no id"));
  }
  SECTION("missing target.spm") {
    fs::remove(dir / "target.spm");
    CHECK(contains(load_error(dir), (dir / "target.spm").string()));
  }
  SECTION("decoder.yml naming two models") {
    write(dir / "decoder.yml",
          std::string("relative-paths: true\nmodels:\n  - ") + kModelFile + "\n  - " + kModelFile +
              "\nvocabs:\n  - opus.spm32k-spm32k.vocab.yml\n  - opus.spm32k-spm32k.vocab.yml\n");
    CHECK(contains(load_error(dir), "ensembles are not supported"));
  }
  SECTION("the CLI prints the error in one line and exits 1") {
    fs::remove(model);
    const auto r = test::run_s2s("translate -m '" + dir.string() + "'", "hello\n");
    CHECK(r.exit_code == 1);
    CHECK(test::count_lines(r.err) == 1);
    CHECK(r.out.empty());
  }
  fs::remove_all(dir);
}

}  // namespace s2s
