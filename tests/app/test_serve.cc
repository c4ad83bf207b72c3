// `s2s serve` over real HTTP on a loopback port: LibreTranslate's calls, the native endpoints
// against the CLI's output, several models, limits, overload, API keys, SIGTERM under load.
#include <catch2/catch.hpp>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <csignal>
#include <fstream>
#include <sstream>

#include "serve_runner.h"

using nlohmann::json;
using s2s::test::json_of;
using s2s::test::ServerProcess;
using s2s::test::shipped_model;

namespace {

const std::string fixture_model = std::string(S2S_TEST_DATA) + "/models/marian-postnorm-swish-tiedall";

// The CLI's best translation of each line.
std::vector<std::string> cli_lines(const std::string& args, const std::string& input) {
  const auto run = s2s::test::run_s2s(args, input);
  REQUIRE(run.exit_code == 0);
  std::vector<std::string> lines;
  std::istringstream in(run.out);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

// A plain TCP connection to the server (to send part of a request, or to go away mid-request).
int connect_raw(int port) {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  REQUIRE(fd >= 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(static_cast<uint16_t>(port));
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  REQUIRE(connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0);
  return fd;
}

}  // namespace

TEST_CASE("serve: LibreTranslate's /translate with a string, a list, form fields, html and alternatives", "[serve]") {
  ServerProcess server({"-m", shipped_model()});
  const auto expected = cli_lines("translate -m '" + shipped_model() + "'", "Hello world.\nGood morning.\n");

  auto one = server.post("/translate", {{"q", "Hello world."}, {"source", "en"}, {"target", "de"}});
  REQUIRE(one);
  CHECK(one->status == 200);
  CHECK(json_of(one) == json{{"translatedText", expected[0]}});

  auto list = server.post("/translate", {{"q", {"Hello world.", "Good morning."}}, {"source", "en"}, {"target", "de"}});
  CHECK(json_of(list)["translatedText"] == json(expected));

  httplib::Params form = {{"q", "Hello world."}, {"source", "en"}, {"target", "de"}, {"alternatives", "2"}};
  auto alternatives = server.client().Post("/translate", form);
  REQUIRE(alternatives->status == 200);
  const json answer = json_of(alternatives);
  CHECK(answer["translatedText"] == expected[0]);
  REQUIRE(answer["alternatives"].size() == 2);
  CHECK(answer["alternatives"][0] != answer["translatedText"]);

  auto html = server.post("/translate", {{"q", "<b>Hello</b> world."}, {"source", "en"}, {"target", "de"}, {"format", "html"}});
  const std::string text = json_of(html)["translatedText"];
  CHECK(text.find("<b>") != std::string::npos);
  CHECK(text.find("</b>") != std::string::npos);

  auto languages = server.client().Get("/languages");
  CHECK(json_of(languages) == json::parse(R"([{"code":"de","name":"German","targets":[]},{"code":"en","name":"English","targets":["de"]}])"));
  CHECK(json_of(server.client().Get("/health"))["status"] == "ok");
  CHECK(json_of(server.client().Get("/openapi.json")).contains("paths"));
}

// Each message is LibreTranslate's own (libretranslate/app.py), for the same case.
TEST_CASE("serve: bad fields answer LibreTranslate's errors with 400 and the server keeps serving", "[serve]") {
  ServerProcess server({"-m", shipped_model(), "--max-body", "2000", "--max-chars", "100", "--alternatives-limit", "3"});
  const auto answer = [&](const httplib::Result& r) {
    REQUIRE(r);
    return std::make_pair(r->status, json_of(r)["error"].get<std::string>());
  };
  const auto bad = [](const std::string& message) { return std::make_pair(400, message); };
  const json ok = {{"q", "x"}, {"source", "en"}, {"target", "de"}};
  const auto with = [&](const char* name, const json& value) { json r = ok; r[name] = value; return r; };
  const auto without = [&](const char* name) { json r = ok; r.erase(name); return r; };
  CHECK(answer(server.post("/translate", without("q"))) == bad("Invalid request: missing q parameter"));
  CHECK(answer(server.post("/translate", with("q", ""))) == bad("Invalid request: missing q parameter"));
  CHECK(answer(server.post("/translate", with("q", json::array()))) == bad("Invalid request: missing q parameter"));
  CHECK(answer(server.post("/translate", without("source"))) == bad("Invalid request: missing source parameter"));
  CHECK(answer(server.post("/translate", with("target", ""))) == bad("Invalid request: missing target parameter"));
  CHECK(answer(server.post("/translate", with("target", "fr"))) == bad("fr is not supported"));
  CHECK(answer(server.post("/translate", with("source", "xx"))) == bad("xx is not supported"));
  CHECK(answer(server.post("/translate", {{"q", "x"}, {"source", "de"}, {"target", "en"}})) ==
        bad("English (en) is not available as a target language from German (de)"));
  CHECK(answer(server.post("/translate", with("format", "pdf"))) == bad("pdf format is not supported"));
  CHECK(answer(server.post("/translate", with("alternatives", "many"))) ==
        bad("Invalid request: alternatives parameter is not a number"));
  CHECK(answer(server.post("/translate", with("alternatives", 4))) ==
        bad("Invalid request: alternatives parameter must be <= 3"));
  CHECK(answer(server.post("/translate", with("q", std::string(150, 'a')))) ==
        bad("Invalid request: request (150) exceeds text limit (100)"));
  CHECK(answer(server.client().Post("/translate", "[1]", "application/json")) == bad("Invalid JSON format"));
  CHECK(answer(server.client().Post("/translate", "{\"q\": ", "application/json")).second.rfind("Failed to decode JSON object: ", 0) == 0);
  CHECK(answer(server.post("/translate", with("source", "auto"))).first == 400);
  CHECK(answer(server.post("/translate", with("q", {1, 2}))).first == 400);
  CHECK(answer(server.post("/translate", with("q", std::string(5000, 'a')))).first == 413);
  CHECK(answer(server.client().Post("/translate_file", "", "text/plain")) ==
        std::make_pair(403, std::string("Files translation are disabled on this server.")));
  CHECK(answer(server.client().Post("/suggest", "", "text/plain")) ==
        std::make_pair(403, std::string("Suggestions are disabled on this server.")));
  // Upper case codes, a negative alternatives (0), a form's CRLF counted as one character.
  auto upper = server.post("/translate", {{"q", "Hello world."}, {"source", "EN"}, {"target", "De"}, {"alternatives", -2}});
  REQUIRE(upper);
  CHECK(upper->status == 200);
  httplib::Params crlf = {{"q", std::string(50, 'a') + "\r\n" + std::string(49, 'a')}, {"source", "en"}, {"target", "de"}};
  auto crlf_answer = server.client().Post("/translate", crlf);
  REQUIRE(crlf_answer);
  CHECK(crlf_answer->status == 200);
  httplib::MultipartFormDataItems multipart = {{"q", "Hello world.", "", ""}, {"source", "en", "", ""}, {"target", "de", "", ""}};
  auto from_page = server.client().Post("/translate", multipart);
  REQUIRE(from_page);
  CHECK(from_page->status == 200);
  CHECK(json_of(from_page)["translatedText"].is_string());
}

TEST_CASE("serve: --req-limit answers 429 Slowdown per client and minute, a list costing a request per text", "[serve]") {
  ServerProcess server({"-m", shipped_model(), "--req-limit", "3"});
  const json one = {{"q", "Hello"}, {"source", "en"}, {"target", "de"}};
  CHECK(server.post("/translate", {{"q", {"Hello", "Good"}}, {"source", "en"}, {"target", "de"}})->status == 200);
  CHECK(server.post("/translate", one)->status == 200);
  auto refused = server.post("/translate", one);
  REQUIRE(refused);
  CHECK(refused->status == 429);
  CHECK(json_of(refused)["error"] == "Slowdown: 3 per 1 minute");
  CHECK(server.client().Get("/languages")->status == 200);  // exempt, as in LibreTranslate
}

TEST_CASE("serve: /v1/translate and /v1/score give the CLI's texts and scores", "[serve]") {
  ServerProcess server({"-m", shipped_model()});
  const std::string input = "Hello world.\nThe licence is free.\n";
  const auto nbest = cli_lines("translate -m '" + shipped_model() + "' --n-best", input);
  auto answer = server.post("/v1/translate", {{"text", {"Hello world.", "The licence is free."}}, {"num_hypotheses", 4}});
  REQUIRE(answer->status == 200);
  const json results = json_of(answer)["results"];
  REQUIRE(results.size() == 2);
  std::size_t row = 0;
  for (std::size_t line = 0; line < 2; ++line)
    for (const json& h : results[line]["hypotheses"]) {
      REQUIRE(row < nbest.size());
      // "0 ||| text ||| F0= score ||| normalized"
      const std::string& cli = nbest[row++];
      const auto first = cli.find(" ||| "), second = cli.find(" ||| ", first + 5);
      CHECK(cli.substr(0, first) == std::to_string(line));
      CHECK(cli.substr(first + 5, second - first - 5) == h["text"].get<std::string>());
      const float f0 = std::stof(cli.substr(second + 9));
      CHECK(h["score"].get<float>() == Approx(f0).margin(1e-4));
      CHECK(h["token_scores"].size() == h["tokens"].size());
    }
  CHECK(row == nbest.size());

  const auto scores = cli_lines("score -m '" + shipped_model() + "'", "Hello world.\tHallo Welt.\nGood.\tGut.\n");
  auto scored = server.post("/v1/score", {{"source", {"Hello world.", "Good."}}, {"target", {"Hallo Welt.", "Gut."}}});
  REQUIRE(scored->status == 200);
  const json pairs = json_of(scored)["results"];
  REQUIRE(pairs.size() == 2);
  for (std::size_t i = 0; i < 2; ++i) CHECK(pairs[i]["score"].get<float>() == Approx(std::stof(scores[i])).margin(1e-4));
}

TEST_CASE("serve: several models chosen by language pair", "[serve]") {
  ServerProcess server({"-m", shipped_model(), "-m", "en-xx=" + fixture_model});
  CHECK(json_of(server.client().Get("/languages"))[1] == json{{"code", "en"}, {"name", "English"}, {"targets", {"de", "xx"}}});
  const auto fixture = cli_lines("translate -m '" + fixture_model + "'", "Hello world.\n");
  const auto shipped = cli_lines("translate -m '" + shipped_model() + "'", "Hello world.\n");
  CHECK(json_of(server.post("/translate", {{"q", "Hello world."}, {"source", "en"}, {"target", "xx"}}))["translatedText"] == fixture[0]);
  CHECK(json_of(server.post("/translate", {{"q", "Hello world."}, {"source", "en"}, {"target", "de"}}))["translatedText"] == shipped[0]);
}

TEST_CASE("serve: concurrent requests share batches, and a full queue answers 503 with Retry-After", "[serve]") {
  ServerProcess server({"-m", shipped_model(), "--batch-wait-ms", "400", "--max-queue", "4"});
  const json request = {{"q", "Hello world."}, {"source", "en"}, {"target", "de"}};
  std::vector<std::thread> clients;
  std::atomic<int> ok{0};
  for (int i = 0; i < 4; ++i)
    clients.emplace_back([&] { if (server.post("/translate", request)->status == 200) ++ok; });
  // The four texts wait for their batch: the queue is full.
  for (int i = 0; i < 100 && json_of(server.client().Get("/health"))["queued"] != 4; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  auto refused = server.post("/translate", request);
  CHECK(refused->status == 503);
  CHECK(refused->get_header_value("Retry-After") == "1");
  CHECK(json_of(refused).contains("error"));
  for (std::thread& t : clients) t.join();
  CHECK(ok == 4);
  const json health = json_of(server.client().Get("/health"));
  CHECK(health["texts"] == 4);
  CHECK(health["batches"] == 1);  // four requests, one engine call
}

TEST_CASE("serve: a client that disconnects cancels its texts", "[serve]") {
  // The text waits 5 s for its batch; its client goes after 300 ms.
  ServerProcess server({"-m", shipped_model(), "--batch-wait-ms", "5000"});
  const std::string body = R"({"q":"Hello world.","source":"en","target":"de"})";
  const std::string request = "POST /translate HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                              "Content-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body;
  const int fd = connect_raw(server.port());
  REQUIRE(send(fd, request.data(), request.size(), 0) == static_cast<ssize_t>(request.size()));
  for (int i = 0; i < 100 && json_of(server.client().Get("/health"))["queued"] != 1; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  close(fd);
  const auto closed = std::chrono::steady_clock::now();
  json health;
  do {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    health = json_of(server.client().Get("/health"));
  } while (health["cancelled"] != 1 && std::chrono::steady_clock::now() - closed < std::chrono::seconds(3));
  CHECK(health["cancelled"] == 1);
  CHECK(health["queued"] == 0);
  CHECK(health["texts"] == 0);  // never translated
  CHECK(server.post("/translate", json::parse(body))->status == 200);
}

TEST_CASE(
    "serve: a slow client holds only its own connection and is dropped after --request-timeout",
    "[serve]") {
  ServerProcess server({"-m", shipped_model(), "--request-timeout", "1"});
  // Headers and 10 of the 100 body bytes it announces, then nothing.
  const std::string stalled =
      "POST /translate HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
      "Content-Length: 100\r\n\r\n{\"q\":\"Hel";
  const int fd = connect_raw(server.port());
  REQUIRE(send(fd, stalled.data(), stalled.size(), 0) == static_cast<ssize_t>(stalled.size()));
  const auto sent = std::chrono::steady_clock::now();
  // Everyone else is served meanwhile.
  auto answer =
      server.post("/translate", {{"q", "Hello world."}, {"source", "en"}, {"target", "de"}});
  REQUIRE(answer);
  CHECK(answer->status == 200);
  // The stalled connection is closed by the server once its read times out (never answered 200).
  timeval wait{10, 0};
  REQUIRE(setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &wait, sizeof wait) == 0);
  std::string received;
  char buffer[512];
  for (ssize_t n; (n = recv(fd, buffer, sizeof buffer, 0)) > 0;)
    received.append(buffer, static_cast<std::size_t>(n));
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - sent).count();
  close(fd);
  CHECK(received.find(" 200 ") == std::string::npos);
  CHECK(seconds >= 0.9);
  CHECK(seconds < 8.0);
  CHECK(server.post("/translate", {{"q", "Hello"}, {"source", "en"}, {"target", "de"}})->status ==
        200);
}

TEST_CASE("serve: --api-keys: no key is 400, a key not listed 403, as LibreTranslate answers", "[serve]") {
  const auto keys = s2s::test::temp_dir("serve-keys") / "keys";
  std::ofstream(keys) << "# keys\nsecret\n";
  ServerProcess server({"-m", shipped_model(), "--api-keys", keys.string()});
  json request = {{"q", "Hello"}, {"source", "en"}, {"target", "de"}};
  auto none = server.post("/translate", request);
  CHECK(none->status == 400);
  CHECK(json_of(none)["error"] == "Please contact the server operator to get an API key");
  request["api_key"] = "wrong";
  auto wrong = server.post("/translate", request);
  CHECK(wrong->status == 403);
  CHECK(json_of(wrong)["error"] == "Invalid API key");
  request["api_key"] = "secret";
  CHECK(server.post("/translate", request)->status == 200);
}

TEST_CASE("serve: SIGTERM under load answers every accepted request completely and exits 0", "[serve]") {
  ServerProcess server({"-m", shipped_model()});
  const std::string expected = cli_lines("translate -m '" + shipped_model() + "'", "The licence is free.\n")[0];
  std::atomic<bool> stop{false};
  std::atomic<int> answered{0}, wrong{0};
  std::vector<std::thread> clients;
  for (int i = 0; i < 8; ++i)
    clients.emplace_back([&] {
      while (!stop) {
        auto r = server.post("/translate", {{"q", "The licence is free."}, {"source", "en"}, {"target", "de"}});
        if (!r) return;  // refused: the server stopped accepting
        if (r->status == 200 && json_of(r)["translatedText"] == expected) ++answered;
        else ++wrong;
      }
    });
  while (answered < 10) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  server.process().send_signal(SIGTERM);
  const int exit_code = server.process().wait();
  stop = true;
  for (std::thread& t : clients) t.join();
  CHECK(exit_code == 0);
  CHECK(wrong == 0);
  CHECK(server.process().err().find("serve: stopped") != std::string::npos);
}

TEST_CASE("serve: the language pair from the folder's metadata, NLLB-200 given a pair", "[serve]") {
  // tokenizer_config.json: source_lang en, target_lang de.
  const std::string hf_marian = std::string(S2S_TEST_DATA) + "/models/hf-marian-tied";
  // An OPUS-MT README's lines.
  const auto opus = s2s::test::temp_dir("serve-opus") / "model";
  std::filesystem::copy(fixture_model, opus);
  std::ofstream(opus / "README.md") << "# opus-2020-01-01.zip\n\n* dataset: opus\n* source language(s): en\n* target language(s): fr\n";
  const std::string nllb = std::string(S2S_TEST_DATA) + "/models/hf-nllb-tied";
  ServerProcess server({"-m", hf_marian, "-m", opus.string(), "-m", "en-es=" + nllb});
  CHECK(json_of(server.client().Get("/languages"))[1] ==
        json{{"code", "en"}, {"name", "English"}, {"targets", {"de", "fr", "es"}}});
  const auto nllb_cli = cli_lines("translate -m '" + nllb + "' --source-lang en --target-lang es", "Hello world.\n");
  auto answer = server.post("/translate", {{"q", "Hello world."}, {"source", "en"}, {"target", "es"}});
  REQUIRE(answer);
  CHECK(answer->status == 200);
  CHECK(json_of(answer)["translatedText"] == (nllb_cli.empty() ? "" : nllb_cli[0]));
}

TEST_CASE(
    "serve: the pairs of one NLLB-200 folder share its model, each translated and scored as its "
    "pair",
    "[serve]") {
  const std::string nllb = std::string(S2S_TEST_DATA) + "/models/hf-nllb-tied";
  ServerProcess server({"-m", "en-es=" + nllb, "-m", "en-fr=" + nllb, "-m", "de-fr=" + nllb});
  for (const auto& [source, target] : {std::pair{"en", "es"}, {"en", "fr"}, {"de", "fr"}}) {
    INFO(source << "-" << target);
    const std::string languages =
        std::string(" --source-lang ") + source + " --target-lang " + target;
    const auto translations =
        cli_lines("translate -m '" + nllb + "'" + languages, "Hello world.\nGood morning.\n");
    auto answer = server.post(
        "/translate",
        {{"q", {"Hello world.", "Good morning."}}, {"source", source}, {"target", target}});
    REQUIRE(answer);
    CHECK(json_of(answer)["translatedText"] == json(translations));
    const auto scores =
        cli_lines("score -m '" + nllb + "'" + languages, "Hello world.\tHola mundo.\n");
    auto scored = server.post("/v1/score", {{"source", {"Hello world."}},
                                            {"target", {"Hola mundo."}},
                                            {"source_lang", source},
                                            {"target_lang", target}});
    REQUIRE(scored);
    REQUIRE(scores.size() == 1);
    CHECK(json_of(scored)["results"][0]["score"].get<double>() ==
          Approx(std::stod(scores[0])).epsilon(1e-5));
  }
  CHECK(server.process().err().find("en-fr shares the model of en-es") != std::string::npos);
  CHECK(server.process().err().find("de-fr shares the model of en-es") != std::string::npos);
}

TEST_CASE("serve: one bilingual folder as two pairs is a usage error", "[serve]") {
  const auto run = s2s::test::run_s2s("serve -m en-de='" + fixture_model + "' -m en-fr='" +
                                      fixture_model + "' --port 0");
  CHECK(run.exit_code == 2);
  CHECK(run.err.find("only an NLLB-200 or M2M-100 folder serves several pairs") !=
        std::string::npos);
}

TEST_CASE("serve: a model folder without a language pair is a usage error", "[serve]") {
  const auto run = s2s::test::run_s2s("serve -m '" + fixture_model + "' --port 0");
  CHECK(run.exit_code == 2);
  CHECK(run.err.find("no language pair in the folder's metadata") != std::string::npos);
  CHECK(run.err.find("give it as -m SRC-TGT=") != std::string::npos);
}

// Given neither, one single-thread worker per core (OMP_NUM_THREADS when set); given one, the
// cores divided by it.
TEST_CASE("serve: the cores divided into workers and threads", "[serve]") {
  const char* before = std::getenv("OMP_NUM_THREADS");
  const std::string saved = before ? before : "";
  setenv("OMP_NUM_THREADS", "4", 1);
  const auto layout = [](std::vector<std::string> args) {
    args.insert(args.begin(), {"-m", shipped_model()});
    const ServerProcess server(args);
    const json health = json_of(server.client().Get("/health"));
    return std::pair{health["workers"].get<int>(), health["threads_per_worker"].get<int>()};
  };
  CHECK(layout({"--threads", "0"}) == std::pair{4, 1});
  CHECK(layout({"--threads", "2"}) == std::pair{2, 2});
  CHECK(layout({"--threads", "0", "--workers", "1"}) == std::pair{1, 4});
  CHECK(layout({"--workers", "3"}) == std::pair{3, 1});  // the tests' --threads 1
  if (before)
    setenv("OMP_NUM_THREADS", saved.c_str(), 1);
  else
    unsetenv("OMP_NUM_THREADS");
}
