// Marian's command-line names (issue 18): each is an alias that gives exactly what the s2s
// option gives, or a one-line usage error saying what to use instead.
#include <catch2/catch.hpp>
#include <fstream>
#include <string>

#include "cli_runner.h"
#include "test_utils.h"

namespace s2s {
namespace {

const std::string kFolder = test::data_path("models/marian-postnorm-swish-tiedall");
const std::string kInput = "the license is free\n\ncopy this software and the program\n";

test::RunResult translate(const std::string& args) {
  return test::run_s2s("translate -b 2 " + args, kInput);
}

}  // namespace

TEST_CASE("translate: Marian's names for s2s options give the same output", "[cli]") {
  const auto own = translate("-m '" + kFolder + "' --batch-size 2 --batch-tokens 0 --threads 1 --quiet");
  INFO(own.err);
  REQUIRE(own.exit_code == 0);
  REQUIRE(test::count_lines(own.out) == 3);
  const auto marian = translate(
      "--models '" + kFolder +
      "/opus.spm32k-spm32k.transformer-align.model1.npz.best-perplexity.npz' --mini-batch 2 "
      "--mini-batch-words 0 --cpu-threads 1 --quiet-translation --maxi-batch-sort none");
  INFO(marian.err);
  CHECK(marian.exit_code == 0);
  CHECK(marian.out == own.out);
  CHECK(marian.err.empty());

  // --max-length-crop is --long-lines truncate.
  const auto truncate = translate("-m '" + kFolder + "' --max-length 4 --long-lines truncate");
  const auto crop = translate("-m '" + kFolder + "' --max-length 4 --max-length-crop");
  CHECK(crop.exit_code == 0);
  CHECK(crop.out == truncate.out);
  CHECK(crop.err == truncate.err);
  CHECK(crop.err.find("truncated to its first 4 tokens") != std::string::npos);

  // --n-best alone prints the n-best lines, as marian-decoder does.
  const auto nbest = translate("-m '" + kFolder + "' --n-best --format nbest");
  const auto bare = translate("-m '" + kFolder + "' --n-best");
  CHECK(bare.exit_code == 0);
  CHECK(bare.out == nbest.out);
  CHECK(test::count_lines(bare.out) == 5);  // two hypotheses for each sentence, one for the blank

  // The help names each alias.
  const auto help = test::run_s2s("translate --help");
  for (const char* name : {"--mini-batch", "--mini-batch-words", "--cpu-threads",
                           "--quiet-translation", "--max-length-crop", "--maxi-batch-sort",
                           "--models", "--vocabs"})
    CHECK(help.out.find(name) != std::string::npos);
}

TEST_CASE("translate and score: -v/--vocabs is a usage error saying where vocabularies come from",
          "[cli]") {
  for (const char* command : {"translate", "score"}) {
    const auto r = test::run_s2s(std::string(command) + " -m '" + kFolder + "' -v a.spm b.spm",
                                 "x\tx\n");
    INFO(r.err);
    CHECK(r.exit_code == 2);
    CHECK(test::count_lines(r.err) == 1);
    CHECK(r.err.find("-v/--vocabs: s2s takes the vocabularies from the model folder") !=
          std::string::npos);
    CHECK(r.out.empty());
  }
}

TEST_CASE("score: marian-scorer's -t SOURCE TARGET is --source --target", "[cli]") {
  const auto dir = test::temp_dir("marian_flags");
  const std::string src = (dir / "src.txt").string(), tgt = (dir / "tgt.txt").string();
  std::ofstream(src) << "the license is free\ncopy this\n";
  std::ofstream(tgt) << "die Lizenz ist frei\nkopiere dies\n";
  const auto own = test::run_s2s("score -m '" + kFolder + "' --source '" + src + "' --target '" +
                                 tgt + "' --batch-size 1 --threads 1");
  REQUIRE(own.exit_code == 0);
  REQUIRE(test::count_lines(own.out) == 2);
  const auto marian = test::run_s2s("score -m '" + kFolder + "' -t '" + src + "' '" + tgt +
                                    "' --mini-batch 1 --cpu-threads 1 --quiet-translation");
  INFO(marian.err);
  CHECK(marian.exit_code == 0);
  CHECK(marian.out == own.out);
}

}  // namespace s2s
