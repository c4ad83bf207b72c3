// Glossary files and matching (pipeline/glossary.h) against the reference's rules
// (tools/fixtures/make_glossary_goldens.py: glossary-matching.json).
#include <catch2/catch.hpp>
#include <fstream>
#include <nlohmann/json.hpp>

#include "fixtures.h"
#include "s2s/core/error.h"
#include "s2s/pipeline/glossary.h"

namespace s2s {

TEST_CASE("glossary matching and constraint ids match the reference", "[glossary]") {
  std::ifstream in(test::data_path("golden/glossary-matching.json"));
  REQUIRE(in);
  const nlohmann::json golden = nlohmann::json::parse(in);
  const pipeline::Glossary glossary(golden["tsv"].get<std::string>(), "glossary.tsv");
  const auto model = test::load_fixture(test::fixture_named("marian-postnorm-swish-tiedall"));
  const std::int32_t eos = model->config().eos_id;
  const pipeline::EncodeTarget encode = [&](const std::string& text) {
    std::vector<std::int32_t> ids = model->codec().encode_target(text);
    if (!ids.empty() && ids.back() == eos) ids.pop_back();
    return ids;
  };
  for (const auto& c : golden["cases"]) {
    const std::string line = c["line"].get<std::string>();
    const bool ignore_case = c["ignore_case"].get<bool>();
    INFO(line << (ignore_case ? " (ignore case)" : ""));
    std::vector<std::string> terms;
    for (const pipeline::GlossaryEntry* e : glossary.match(line, ignore_case))
      terms.push_back(e->target);
    CHECK(terms == c["terms"].get<std::vector<std::string>>());
    const pipeline::LineConstraints found =
        pipeline::line_constraints(glossary, line, ignore_case, encode);
    CHECK(found.phrases == c["constraint_ids"].get<std::vector<std::vector<std::int32_t>>>());
    CHECK(found.dropped_lines.empty());
  }
}

TEST_CASE("malformed glossaries name the file and line", "[glossary]") {
  std::ifstream in(test::data_path("golden/glossary-matching.json"));
  const nlohmann::json golden = nlohmann::json::parse(in);
  for (const auto& e : golden["errors"]) {
    const std::string expected = "g.tsv:" + std::to_string(e["line"].get<int>()) + ": ";
    INFO(e["tsv"].dump());
    try {
      pipeline::Glossary(e["tsv"].get<std::string>(), "g.tsv");
      FAIL("no error");
    } catch (const InputError& error) {
      CHECK(std::string(error.what()).rfind(expected, 0) == 0);
    }
  }
  CHECK(pipeline::Glossary("\n \r\n", "g.tsv").empty());
  CHECK(pipeline::Glossary("a b\tc d\r\n", "g.tsv").entries().front().target == "c d");
}

TEST_CASE("glossary terms with the target unknown token are dropped", "[glossary]") {
  const pipeline::Glossary glossary("cat\tgato\ndog\tperro\n", "g.tsv");
  const pipeline::EncodeTarget encode = [](const std::string& text) {
    return text == "gato" ? std::vector<std::int32_t>{5, 1} : std::vector<std::int32_t>{6};
  };
  const pipeline::LineConstraints found =
      pipeline::line_constraints(glossary, "a dog and a cat", false, encode, {1});
  CHECK(found.phrases == std::vector<std::vector<std::int32_t>>{{6}});
  CHECK(found.dropped_lines == std::vector<std::size_t>{1});
}

}  // namespace s2s
