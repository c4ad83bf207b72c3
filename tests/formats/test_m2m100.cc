// NLLB-200 and M2M-100 Hugging Face folders (formats/hf_m2m100.h): translations with the
// languages chosen as the family does it, against the numpy reference (tools/reference/
// m2m100_ref.py via tools/fixtures/make_m2m100_fixtures.py, golden/<name>.translate.json); the
// language codes; and the one-line errors for broken folders. Encoder output, logits and
// unforced greedy decoding are checked with the other fixtures in model/test_parity.cc.
#include <filesystem>
#include <functional>
#include <fstream>
#include <nlohmann/json.hpp>

#include "app/cli_runner.h"
#include "fixtures.h"
#include "formats/m2m100_goldens.h"
#include "s2s/formats/detect.h"
#include "s2s/pipeline/languages.h"
#include "s2s/pipeline/translator.h"
#include "test_utils.h"

namespace s2s {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

std::string model_dir(const std::string& name) { return test::data_path("models/" + name); }

std::shared_ptr<const model::Model> load(const std::string& name) {
  return formats::load_model(model_dir(name));
}


// A copy of a fixture folder to break.
fs::path copy_of(const std::string& name, const test::TempDir& tmp) {
  const fs::path to = tmp.dir / name;
  fs::copy(model_dir(name), to, fs::copy_options::recursive);
  return to;
}

std::string load_error(const fs::path& folder) {
  try {
    formats::load_model(folder.string());
  } catch (const ModelError& e) {
    return e.what();
  }
  return "(loaded)";
}

}  // namespace

TEST_CASE("NLLB-200 and M2M-100 translate as the reference does, language tokens placed",
          "[formats][m2m100][parity]") {
  const char* name = GENERATE("hf-nllb-tied", "hf-nllb-sharded-untied-legacy", "hf-m2m100-tied");
  test::check_golden_translations(load(name), name);
}

TEST_CASE("language codes: the family's, ISO 639-1 where it is unambiguous, close codes otherwise",
          "[formats][m2m100]") {
  const auto nllb = load("hf-nllb-tied");
  const text::LanguageTokens& n = nllb->codec().languages();
  CHECK(n.tokens.size() == 202);
  CHECK(n.resolve("deu_Latn", "--target-lang") == "deu_Latn");
  CHECK(n.resolve("de", "--target-lang") == "deu_Latn");
  CHECK(n.resolve("deu", "--target-lang") == "deu_Latn");
  CHECK(n.resolve("ar", "--target-lang") == "arb_Arab");  // a macrolanguage's standard variety
  CHECK_THROWS_WITH(n.resolve("zh", "--target-lang"),
                    Catch::Contains("ambiguous") && Catch::Contains("zho_Hans zho_Hant"));
  CHECK_THROWS_WITH(n.resolve("deu_Latm", "--source-lang"),
                    Catch::Contains("--source-lang deu_Latm") && Catch::Contains("deu_Latn"));
  const auto m2m = load("hf-m2m100-tied");
  const text::LanguageTokens& m = m2m->codec().languages();
  CHECK(m.tokens.size() == 100);
  CHECK(m.resolve("de", "--target-lang") == "__de__");
  CHECK(m.resolve("__de__", "--target-lang") == "__de__");
  CHECK(m.codes().rfind("af am ar", 0) == 0);
  // Language tokens and the specials never reach the text: HF's skip_special_tokens.
  const text::Vocabulary& v = nllb->codec().target_vocab();
  CHECK(nllb->codec().decode_target({v.id_of("deu_Latn"), v.id_of("<unk>"), v.id_of("\xe2\x96\x81" "an"),
                                     2}) == "an");
}

TEST_CASE("NLLB-200 / M2M-100 translate from the command line with --source-lang --target-lang",
          "[formats][m2m100][cli]") {
  const std::string m = "-m '" + model_dir("hf-nllb-tied") + "'";
  const json run = test::golden_translations("hf-nllb-tied")[0];  // eng_Latn -> deu_Latn, greedy
  const auto ok = test::run_s2s("translate -b 1 --source-lang en --target-lang de " + m,
                                run["source"].get<std::string>() + "\n");
  INFO(ok.err);
  CHECK(ok.exit_code == 0);
  CHECK(ok.out == run["text"].get<std::string>() + "\n");

  const auto missing = test::run_s2s("translate --target-lang deu_Latn " + m, "x\n");
  CHECK(missing.exit_code == 2);
  CHECK(test::count_lines(missing.err) == 1);
  CHECK(missing.err.find("--source-lang") != std::string::npos);

  const auto unknown = test::run_s2s("translate --source-lang eng_Latn --target-lang xyz_Latn " + m, "x\n");
  CHECK(unknown.exit_code == 2);
  CHECK(test::count_lines(unknown.err) == 1);
  CHECK(unknown.err.find("closest:") != std::string::npos);

  const auto marian = test::run_s2s("translate --source-lang en -m '" +
                                        model_dir("marian-postnorm-swish-tiedall") + "'", "x\n");
  CHECK(marian.exit_code == 2);
  CHECK(marian.err.find("--source-lang: only NLLB-200 and M2M-100") != std::string::npos);
}

TEST_CASE("broken NLLB-200 / M2M-100 folders give one-line errors naming the file",
          "[formats][m2m100]") {
  const test::TempDir tmp("m2m100");
  SECTION("vocab_size smaller than the tokenizer") {
    const fs::path f = copy_of("hf-nllb-tied", tmp);
    test::edit_json(f / "config.json", [](json& c) { c["vocab_size"] = 300; });
    const std::string e = load_error(f);
    CHECK(e.find("config.json: vocab_size 300 is smaller than the tokenizer's 364 tokens") !=
          std::string::npos);
  }
  SECTION("a config key M2M-100 does not have") {
    const fs::path f = copy_of("hf-m2m100-tied", tmp);
    test::edit_json(f / "config.json", [](json& c) { c["normalize_before"] = false; });
    const std::string e = load_error(f);
    CHECK(e.find("config.json: unsupported model") != std::string::npos);
    CHECK(e.find("'normalize_before' is not a setting of model_type m2m_100") != std::string::npos);
  }
  SECTION("a language token numbered otherwise than the tokenizer numbers it") {
    const fs::path f = copy_of("hf-nllb-tied", tmp);
    test::edit_json(f / "tokenizer_config.json",
              [](json& c) { c["added_tokens_decoder"] = {{"200", {{"content", "deu_Latn"}}}}; });
    CHECK(load_error(f).find("tokenizer_config.json: added token") != std::string::npos);
  }
  SECTION("a language token the tokenizer files do not list") {
    const fs::path f = copy_of("hf-nllb-tied", tmp);
    test::edit_json(f / "tokenizer_config.json",
              [](json& c) { c["added_tokens_decoder"] = {{"364", {{"content", "xyz_Latn"}}}}; });
    CHECK(load_error(f).find("tokenizer_config.json: added token 'xyz_Latn' (id 364) is none of "
                             "the tokenizer's tokens") != std::string::npos);
  }
  SECTION("a shard index naming a tensor its shard lacks") {
    const fs::path f = copy_of("hf-nllb-sharded-untied-legacy", tmp);
    test::edit_json(f / "model.safetensors.index.json", [](json& c) {
      json& shard = c["weight_map"]["lm_head.weight"];
      shard = shard == "model-00001-of-00002.safetensors" ? "model-00002-of-00002.safetensors"
                                                          : "model-00001-of-00002.safetensors";
    });
    CHECK(load_error(f).find("model.safetensors.index.json: places 'lm_head.weight' in") !=
          std::string::npos);
  }
  SECTION("no SentencePiece model") {
    const fs::path f = copy_of("hf-m2m100-tied", tmp);
    fs::remove(f / "sentencepiece.bpe.model");
    CHECK(load_error(f).find("sentencepiece.bpe.model: not found") != std::string::npos);
  }
  SECTION("an untied output without lm_head.weight") {
    const fs::path f = copy_of("hf-nllb-tied", tmp);
    test::edit_json(f / "config.json", [](json& c) { c["tie_word_embeddings"] = false; });
    CHECK(load_error(f).find("lm_head.weight") != std::string::npos);
  }
}

}  // namespace s2s
