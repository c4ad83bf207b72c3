// The corpus-run layer (s2s/corpus/run.h) called as a library: the same output as the s2s
// command, progress heard through the callback, a stop flag honoured, settings given by key.
#include <catch2/catch.hpp>
#include <atomic>
#include <string>

#include "s2s/corpus/run.h"
#include "../app/cli_runner.h"
#include "test_utils.h"

namespace s2s {

TEST_CASE("corpus::translate writes what s2s translate writes", "[api][corpus]") {
  test::TempDir dir;
  const std::string model = test::data_path("models/marian-postnorm-swish-tiedall");
  std::string text;
  for (int i = 0; i < 30; ++i) text += "The license number " + std::to_string(i) + " is free.\n";
  const std::string input = dir.write("in.txt", text);
  const std::string output = (dir.dir / "out.jsonl").string();
  corpus::TranslateJob job;
  job.settings.model = model;
  job.settings.given = {{"beam-size", "2"}, {"format", "jsonl"}, {"maxi-batch", "8"},
                        {"threads", "1"}};
  job.input = input;
  job.output = output;
  std::size_t last = 0, finals = 0;
  corpus::RunControl control;
  control.progress = [&](std::size_t records, bool final) {
    CHECK(records >= last);
    last = records;
    finals += final;
  };
  const corpus::RunResult result = corpus::translate(job, control);
  CHECK(result.lines_in_output == 30);
  CHECK_FALSE(result.stopped);
  CHECK(last == 30);
  CHECK(finals == 1);
  const test::RunResult cli = test::run_s2s("translate -m " + model +
                                            " -b 2 --format jsonl --maxi-batch 8 --threads 1 -i " +
                                            input);
  REQUIRE(cli.exit_code == 0);
  CHECK(test::slurp(output) == cli.out);

  job.settings.given = {{"beam-size", "two", "--beam-size"}};
  CHECK_THROWS_WITH(corpus::translate(job), Catch::Contains("--beam-size"));
  job.settings.given = {{"no-such-key", "1"}};
  CHECK_THROWS_WITH(corpus::translate(job), Catch::Contains("unknown setting 'no-such-key'"));
}

TEST_CASE("corpus runs stop on their flag and resume from the journal", "[api][corpus]") {
  test::TempDir dir;
  const std::string model = test::data_path("models/marian-postnorm-swish-tiedall");
  std::string pairs;
  for (int i = 0; i < 20; ++i) pairs += "Hello " + std::to_string(i) + ".\tHallo.\n";
  const std::string input = dir.write("pairs.tsv", pairs);
  corpus::ScoreJob job;
  job.settings.model = model;
  job.settings.given = {{"batch-size", "2"}, {"maxi-batch", "4"}, {"threads", "1"}};
  job.input = input;
  job.output = (dir.dir / "scores.txt").string();
  job.resume = true;
  std::atomic<bool> stop{false};
  corpus::RunControl control;
  control.stop_flag = [&] { return &stop; };
  control.progress = [&](std::size_t records, bool) {
    if (records >= 4) stop = true;
  };
  const corpus::RunResult first = corpus::score(job, control);
  CHECK(first.stopped);
  CHECK(first.lines_in_output < 20);
  const std::optional<corpus::RunStatus> status = corpus::run_status(job.output, 0);
  REQUIRE(status);
  CHECK_FALSE(status->complete);
  CHECK(status->lines_total == 20);
  stop = false;
  control.progress = nullptr;
  const corpus::RunResult second = corpus::score(job, control);
  CHECK_FALSE(second.stopped);
  CHECK(second.lines_in_output == 20);
  CHECK(corpus::run_status(job.output, 0)->complete);
  const test::RunResult cli = test::run_s2s("score -m " + model +
                                            " --batch-size 2 --maxi-batch 4 --threads 1 -i " + input);
  CHECK(test::slurp(job.output) == cli.out);
  CHECK_FALSE(corpus::run_status((dir.dir / "none").string(), 0));
}

}  // namespace s2s
