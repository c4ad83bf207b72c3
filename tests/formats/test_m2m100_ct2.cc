// CTranslate2 conversions of NLLB-200 and M2M-100 (formats/ct2.h with hf_m2m100.h
// converted_languages), written by tools/fixtures/make_m2m100_ct2_fixtures.py in the converter's
// layout from the Hugging Face fixtures: the same logits and token-identical greedy and beam-4
// translations as the folder each came from (the numpy reference's goldens of that folder), the
// int8 conversion against the reference run on its dequantised weights, and the languages read
// from shared_vocabulary.json.
#include <filesystem>
#include <functional>
#include <fstream>
#include <nlohmann/json.hpp>

#include "app/cli_runner.h"
#include "fixtures.h"
#include "formats/m2m100_goldens.h"
#include "model/golden.h"
#include "s2s/formats/detect.h"
#include "s2s/pipeline/languages.h"
#include "s2s/pipeline/translator.h"
#include "test_utils.h"

namespace s2s {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

constexpr double kTolerance = 1e-4;  // relative, on float32 logits

std::string model_dir(const std::string& name) { return test::data_path("models/" + name); }

}  // namespace

TEST_CASE("CTranslate2 conversions of NLLB-200 / M2M-100 translate as their Hugging Face folders",
          "[formats][m2m100][ct2][parity]") {
  const auto [ct2, hf] = GENERATE(std::pair{"ct2-nllb-tied", "hf-nllb-tied"},
                                  std::pair{"ct2-nllb-untied-legacy", "hf-nllb-sharded-untied-legacy"},
                                  std::pair{"ct2-m2m100-tied", "hf-m2m100-tied"},
                                  std::pair{"ct2-nllb-int8", "ct2-nllb-int8"});
  const auto model = formats::load_model(model_dir(ct2));
  INFO(ct2);
  CHECK(model->info().format == "ctranslate2");
  CHECK(model->config().add_source_eos);  // the tokenizer's </s>, which CTranslate2 users pass
  CHECK(model->config().alignment_layer < 0);
  test::check_golden_translations(model, hf);
}

TEST_CASE("CTranslate2 conversions of NLLB-200 / M2M-100: logits of the folder they came from",
          "[formats][m2m100][ct2][parity]") {
  const auto [ct2, hf] = GENERATE(std::pair{"ct2-nllb-tied", "hf-nllb-tied"},
                                  std::pair{"ct2-nllb-untied-legacy", "hf-nllb-sharded-untied-legacy"},
                                  std::pair{"ct2-m2m100-tied", "hf-m2m100-tied"});
  const double worst = test::golden_logits_error(*formats::load_model(model_dir(ct2)), hf);
  INFO(ct2 << " against the reference of " << hf << ": max rel error " << worst);
  CHECK(worst <= kTolerance);
}

TEST_CASE("CTranslate2 conversions of NLLB-200 / M2M-100: languages from shared_vocabulary.json",
          "[formats][m2m100][ct2]") {
  const auto nllb = formats::load_model(model_dir("ct2-nllb-tied"));
  const text::LanguageTokens& n = nllb->codec().languages();
  CHECK(n.family == text::LanguageFamily::nllb);
  CHECK(n.tokens.size() == 202);
  CHECK(!n.source_after_eos);
  CHECK(n.resolve("de", "--target-lang") == "deu_Latn");
  CHECK(nllb->config().architecture == "transformer (CTranslate2 conversion of NLLB-200)");
  // legacy_behaviour from the tokenizer_config.json copied beside model.bin.
  CHECK(formats::load_model(model_dir("ct2-nllb-untied-legacy"))->codec().languages().source_after_eos);
  const auto m2m = formats::load_model(model_dir("ct2-m2m100-tied"));
  CHECK(m2m->codec().languages().family == text::LanguageFamily::m2m100);
  CHECK(m2m->codec().languages().tokens.size() == 100);
  CHECK(m2m->codec().languages().resolve("de", "--target-lang") == "__de__");
  // A CTranslate2 model without language tokens keeps its own rules.
  const auto onmt = test::load_fixture(test::fixture_named("ct2-onmt-abspos"));
  CHECK(onmt->codec().languages().empty());
  CHECK(!onmt->config().add_source_eos);
}

TEST_CASE("CTranslate2 NLLB-200 folder with shared_vocabulary.txt, as older converters wrote it",
          "[formats][m2m100][ct2]") {
  const test::TempDir tmp("m2m100_ct2");
  const fs::path folder = tmp.dir / "ct2-nllb-tied";
  fs::copy(model_dir("ct2-nllb-tied"), folder);
  json tokens;
  {
    std::ifstream in(folder / "shared_vocabulary.json");
    tokens = json::parse(in);
  }
  fs::remove(folder / "shared_vocabulary.json");
  {
    std::ofstream out(folder / "shared_vocabulary.txt");
    for (const json& token : tokens) out << token.get<std::string>() << "\n";
  }
  const auto model = formats::load_model(folder.string());
  CHECK(model->codec().languages().tokens.size() == 202);
  test::check_golden_translations(model, "hf-nllb-tied");
}

TEST_CASE("CTranslate2 NLLB-200 folder translates from the command line with its languages",
          "[formats][m2m100][ct2][cli]") {
  const std::string m = "-m '" + model_dir("ct2-nllb-tied") + "'";
  const json run = test::golden_translations("hf-nllb-tied")[0];  // eng_Latn -> deu_Latn, greedy
  const auto ok = test::run_s2s("translate -b 1 --source-lang eng_Latn --target-lang deu_Latn " + m,
                                run["source"].get<std::string>() + "\n");
  INFO(ok.err);
  CHECK(ok.exit_code == 0);
  CHECK(ok.out == run["text"].get<std::string>() + "\n");
  const auto missing = test::run_s2s("translate --source-lang eng_Latn " + m, "x\n");
  CHECK(missing.exit_code == 2);
  CHECK(missing.err.find("--target-lang") != std::string::npos);
  const auto info = test::run_s2s("info " + m);
  CHECK(info.exit_code == 0);
  CHECK(info.out.find("format: ctranslate2\n") != std::string::npos);
  CHECK(info.out.find("languages (--source-lang, --target-lang; 202, source token first): ace_Arab") !=
        std::string::npos);
  CHECK(info.out.find("word alignment (--alignment): not available: M2M-100 and NLLB-200") !=
        std::string::npos);
}

namespace {

// A copy of a fixture folder to break.
fs::path broken_copy(const std::string& name, const test::TempDir& tmp) {
  const fs::path to = tmp.dir / name;
  fs::copy(model_dir(name), to);
  return to;
}

// Overwrites the value of model.bin's scalar variable `name` (rank 0: name, NUL, rank byte,
// dtype byte, u32 byte count, value) with `bytes`.
void patch_scalar(const fs::path& bin, const std::string& name, const std::string& bytes) {
  std::string data = test::read_file(bin);
  const std::size_t at = data.find(name + std::string(1, '\0'));
  REQUIRE(at != std::string::npos);
  data.replace(at + name.size() + 1 + 1 + 1 + 4, bytes.size(), bytes);
  std::ofstream(bin, std::ios::binary) << data;
}

std::string load_error(const fs::path& folder) {
  try {
    formats::load_model(folder.string());
  } catch (const ModelError& e) {
    CHECK(std::string(e.what()).find('\n') == std::string::npos);
    return e.what();
  }
  return "(loaded)";
}

}  // namespace

TEST_CASE("broken CTranslate2 NLLB-200 / M2M-100 folders give one-line errors naming the file",
          "[formats][m2m100][ct2]") {
  const test::TempDir tmp("m2m100_ct2");
  SECTION("a vocabulary with more tokens than the embeddings have rows") {
    const fs::path f = broken_copy("ct2-nllb-tied", tmp);
    test::edit_json(f / "shared_vocabulary.json", [](json& v) { v.push_back("madeupword0"); });
    CHECK(load_error(f).find("shared_vocabulary.json: 365 tokens, but the encoder embeddings of "
                             "model.bin have 364 rows") != std::string::npos);
  }
  SECTION("a vocabulary with fewer") {
    const fs::path f = broken_copy("ct2-m2m100-tied", tmp);
    test::edit_json(f / "shared_vocabulary.json", [](json& v) { v.erase(v.end() - 1); });
    CHECK(load_error(f).find("shared_vocabulary.json: 268 tokens, but the encoder embeddings") !=
          std::string::npos);
  }
  SECTION("a language of the copied tokenizer files missing from the vocabulary") {
    const fs::path f = broken_copy("ct2-nllb-untied-legacy", tmp);
    test::edit_json(f / "shared_vocabulary.json", [](json& v) {
      for (json& token : v)
        if (token == "zul_Latn") token = "madeupword9";
    });
    CHECK(load_error(f).find("shared_vocabulary.json: no token 'zul_Latn', which the tokenizer "
                             "files' additional_special_tokens name") != std::string::npos);
  }
  SECTION("a config.json setting the family's conversions do not have") {
    const fs::path f = broken_copy("ct2-nllb-tied", tmp);
    test::edit_json(f / "config.json", [](json& c) { c["add_source_bos"] = true; });
    CHECK(load_error(f).find("config.json: add_source_bos true is not supported") != std::string::npos);
  }
  SECTION("an embedding scale that is neither sqrt(d_model) nor 1") {
    const fs::path f = broken_copy("ct2-nllb-tied", tmp);
    const float three = 3.0f;
    patch_scalar(f / "model.bin", "decoder/scale_embeddings",
                 std::string(reinterpret_cast<const char*>(&three), sizeof three));
    const std::string e = load_error(f);
    CHECK(e.find("model.bin: unsupported model: decoder/scale_embeddings 3.000000 (s2s scales "
                 "embeddings by sqrt(16) or not at all)") != std::string::npos);
  }
  SECTION("the flag of a spec this family does not use") {
    const fs::path f = broken_copy("ct2-nllb-tied", tmp);
    patch_scalar(f / "model.bin", "decoder/alibi", std::string(1, '\1'));
    CHECK(load_error(f).find("model.bin: unsupported model: decoder/alibi is not supported") !=
          std::string::npos);
  }
}

}  // namespace s2s
