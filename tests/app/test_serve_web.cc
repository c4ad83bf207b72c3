// The page of `s2s serve` and what it needs of the server: GET / and its files from the binary
// (no file at run time, nothing from elsewhere), GET /v1/models (which pairs give alignments),
// and glossary terms sent with a /v1/translate request. The page itself is tested in a browser
// (tests/web/test_page.py).
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "cli_runner.h"
#include "serve_runner.h"

using nlohmann::json;
using s2s::test::json_of;
using s2s::test::ServerProcess;
using s2s::test::shipped_model;

namespace {

const std::string unaligned_model = std::string(S2S_TEST_DATA) + "/models/hf-marian-tied";

std::string source_file(const std::string& path) {
  std::ifstream in(std::string(S2S_TEST_DATA) + "/../../" + path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

std::size_t glossary_files() {
  std::size_t n = 0;
  for (const auto& entry : std::filesystem::directory_iterator(std::filesystem::temp_directory_path()))
    n += entry.path().filename().string().rfind("s2s-serve-glossary-", 0) == 0;
  return n;
}

}  // namespace

TEST_CASE("serve: GET / and the page's files come from the binary, with a policy that allows nothing from elsewhere", "[serve][web]") {
  ServerProcess server({"-m", shipped_model()});
  auto client = server.client();
  for (const auto& [path, file, type] : {std::tuple{"/", "app/web/index.html", "text/html"},
                                         std::tuple{"/web/style.css", "app/web/style.css", "text/css"},
                                         std::tuple{"/web/app.js", "app/web/app.js", "text/javascript"}}) {
    auto res = client.Get(path);
    REQUIRE(res);
    CHECK(res->status == 200);
    CHECK(res->body == source_file(file));
    CHECK(res->get_header_value("Content-Type").rfind(type, 0) == 0);
    CHECK(res->get_header_value("Content-Security-Policy").find("default-src 'self'") != std::string::npos);
  }
  auto missing = client.Get("/web/none.js");
  REQUIRE(missing);
  CHECK(missing->status == 404);
}

TEST_CASE("serve: /v1/models says which pairs give word alignments, and why not", "[serve][web]") {
  ServerProcess server({"-m", "en-de=" + shipped_model(), "-m", "en-xx=" + unaligned_model, "--max-chars", "900"});
  auto res = server.client().Get("/v1/models");
  REQUIRE(res);
  REQUIRE(res->status == 200);
  const json answer = json_of(res);
  CHECK(answer["max_chars"] == 900);
  REQUIRE(answer["models"].size() == 2);
  CHECK(answer["models"][0] == json{{"source", "en"}, {"target", "de"}, {"alignment", true}, {"alignment_note", ""}});
  CHECK(answer["models"][1]["target"] == "xx");
  CHECK(answer["models"][1]["alignment"] == false);
  CHECK(answer["models"][1]["alignment_note"].get<std::string>().find("Hugging Face MarianMT") != std::string::npos);
}

TEST_CASE("serve: glossary terms in /v1/translate as --glossary gives them, bad entries answer 400", "[serve][web]") {
  ServerProcess server({"-m", shipped_model()});
  const auto dir = s2s::test::temp_dir("serve-glossary");
  std::ofstream(dir / "terms.tsv") << "file\tAkte\n";
  const auto run = s2s::test::run_s2s("translate -m '" + shipped_model() + "' --glossary '" +
                                          (dir / "terms.tsv").string() + "'",
                                      "The file was not found.\n");
  REQUIRE(run.exit_code == 0);
  REQUIRE(run.out.find("Akte") != std::string::npos);
  const std::size_t files_before = glossary_files();

  auto res = server.post("/v1/translate", {{"text", "The file was not found."}, {"glossary", json::array({json::array({"file", "Akte"})})}});
  REQUIRE(res);
  REQUIRE(res->status == 200);
  CHECK(json_of(res)["results"][0]["hypotheses"][0]["text"].get<std::string>() + "\n" == run.out);
  CHECK(glossary_files() == files_before);  // the request's file is gone with it

  auto plain = server.post("/v1/translate", {{"text", "The file was not found."}, {"glossary", json::array()}});
  REQUIRE(plain);
  CHECK(json_of(plain)["results"][0]["hypotheses"][0]["text"].get<std::string>().find("Akte") == std::string::npos);

  const auto pair = [](json source, json target) { return json::array({json::array({source, target})}); };
  for (const json& bad : {json("file\tAkte"), json::array({json::array({"file"})}), pair("file", " "),
                          pair("fi\tle", "Akte"), pair("file", 3), json::array({"file"})}) {
    auto refused = server.post("/v1/translate", {{"text", "The file."}, {"glossary", bad}});
    REQUIRE(refused);
    CHECK(refused->status == 400);
    CHECK(json_of(refused)["error"].get<std::string>().find("glossary") != std::string::npos);
  }
}
