// Random sampling (search/sampling.h): the draw on small rows, top-k 1 equal to greedy search,
// random numbers that depend only on the seed and the line (not the batch, threads, workers or
// neighbours: on this fixture no draw is near a cut, so the samples are the same too; with a real
// model another batch layout can change a draw, docs/user-guide.md "Sampling"), n-best samples, and
// the options' errors.
#include <cmath>
#include <limits>
#include <map>

#include "app/cli_runner.h"
#include "fixtures.h"
#include "s2s/search/sampling.h"

namespace s2s {
namespace {

const std::string kFolder = test::data_path("models/marian-postnorm-swish-tiedall");

std::string translate(const std::string& flags, const std::string& input) {
  const auto r = test::run_s2s("translate " + flags + " -m '" + kFolder + "'", input);
  INFO(flags << ": " << r.err);
  REQUIRE(r.exit_code == 0);
  return r.out;
}

}  // namespace

TEST_CASE("draw_token: cuts, temperature and the draw", "[search]") {
  const float lowest = std::numeric_limits<float>::lowest();
  // p = 0.5, 0.3, 0.2 and an excluded id.
  const std::vector<float> lp = {std::log(0.3f), lowest, std::log(0.5f), std::log(0.2f)};
  search::SearchOptions options;
  options.sampling.kind = search::Sampling::Kind::full;
  // full: the allowed ids in id order, cumulative 0.3, 0.8, 1.
  CHECK(search::draw_token(lp.data(), 4, options, 0.0) == 0);
  CHECK(search::draw_token(lp.data(), 4, options, 0.29) == 0);
  CHECK(search::draw_token(lp.data(), 4, options, 0.31) == 2);
  CHECK(search::draw_token(lp.data(), 4, options, 0.79) == 2);
  CHECK(search::draw_token(lp.data(), 4, options, 0.81) == 3);
  CHECK(search::draw_token(lp.data(), 4, options, 0.999999) == 3);
  options.sampling = {search::Sampling::Kind::topk, 1, 1.0f};
  CHECK(search::draw_token(lp.data(), 4, options, 0.99) == 2);
  options.sampling = {search::Sampling::Kind::topk, 2, 1.0f};  // 0.5 / 0.8 and 0.3 / 0.8
  CHECK(search::draw_token(lp.data(), 4, options, 0.6) == 2);
  CHECK(search::draw_token(lp.data(), 4, options, 0.7) == 0);
  options.sampling = {search::Sampling::Kind::topp, 0, 0.5f};  // 0.5 reaches 0.5: only the first
  CHECK(search::draw_token(lp.data(), 4, options, 0.99) == 2);
  options.sampling = {search::Sampling::Kind::topp, 0, 0.6f};  // needs the first two
  CHECK(search::draw_token(lp.data(), 4, options, 0.99) == 0);
  // A low temperature sharpens: 0.5^10 : 0.3^10 : 0.2^10, the first holds > 99 %.
  options.sampling.kind = search::Sampling::Kind::full;
  options.temperature = 0.1f;
  CHECK(search::draw_token(lp.data(), 4, options, 0.99) == 2);
}

TEST_CASE("sampling: top-k 1 is greedy search", "[search][cli]") {
  const std::string input = "the license is free\nHello world\nA B C\n";
  CHECK(translate("--sampling topk 1 --seed 3", input) == translate("-b 1", input));
}

TEST_CASE("sampling: a line's samples depend only on the seed and the line", "[search][cli]") {
  std::string input;
  for (int i = 0; i < 12; ++i) input += "line number " + std::to_string(i) + " of the test\n";
  input += "line number 3 of the test\n";  // a repeat: the same sample as its first time
  const std::string reference = translate("--sampling --seed 11 -b 4 --batch-size 1", input);
  const std::vector<std::string> lines = test::split_lines(reference);
  REQUIRE(lines.size() == 13);
  CHECK(lines[12] == lines[3]);
  for (const char* flags : {"--batch-size 32", "--threads 2", "--workers 3 --maxi-batch 5",
                            "--batch-tokens 40"}) {
    INFO(flags);
    CHECK(translate(std::string("--sampling full --seed 11 -b 4 ") + flags, input) == reference);
  }
  // Alone, or with other neighbours, a line gets the same sample.
  CHECK(translate("--sampling --seed 11", "line number 7 of the test\n") == lines[7] + "\n");
  // Another seed, other samples (random fixture: many lines change).
  const std::vector<std::string> other = test::split_lines(translate("--sampling --seed 12", input));
  std::size_t changed = 0;
  for (std::size_t i = 0; i < lines.size(); ++i) changed += other[i] != lines[i];
  CHECK(changed >= 6);
}

TEST_CASE("sampling: --n-best gives beam-size samples, and bad values are usage errors", "[search][cli]") {
  const std::string nbest = translate("--sampling topp 0.9 --seed 5 -b 5 --n-best", "Hello world\n");
  CHECK(test::count_lines(nbest) == 5);
  for (const std::string& line : test::split_lines(nbest)) CHECK(line.rfind("0 ||| ", 0) == 0);
  for (const char* bad : {"--sampling topk 0", "--sampling top 3", "--sampling topp 1.5",
                          "--temperature 0", "--seed -1"}) {
    const auto r = test::run_s2s(std::string("translate ") + bad + " -m '" + kFolder + "'", "x\n");
    INFO(bad << ": " << r.err);
    CHECK(r.exit_code == 2);
    CHECK(test::count_lines(r.err) == 1);
  }
}

}  // namespace s2s
