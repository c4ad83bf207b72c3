// translate --resume, run for real: what is refused (standard input or output, a changed input,
// model, shard or options, an output shorter than its journal, a broken journal), that a run
// without --resume drops a stale journal, and a resume from a journal written by hand at a
// window boundary. resume_loop.sh (CTest) kills and resumes runs at random moments.
#include <filesystem>
#include <string>

#include "cli_runner.h"
#include "s2s/pipeline/journal.h"
#include "test_utils.h"

namespace s2s {
namespace {

std::string model_arg(const std::string& name = "marian-postnorm-swish-tiedall") {
  return "-m '" + test::data_path("models/" + name) + "'";
}

std::string quoted(const std::string& path) { return "'" + path + "'"; }

std::string numbered_lines(int n) {
  std::string text;
  for (int i = 0; i < n; ++i)
    text += i % 7 == 3 ? "\n" : "the license " + std::to_string(i) + " is free\n";
  return text;
}

}  // namespace

TEST_CASE("translate --resume refuses what it cannot continue, in one line", "[cli]") {
  const test::TempDir dir("resume_cli");
  const std::string input = dir.write("in.en", numbered_lines(30));
  const std::string out = (dir.dir / "out.de").string();
  const std::string base = "translate -b 1 --maxi-batch 4 " + model_arg() + " -i " + quoted(input);

  const auto from_stdin = test::run_s2s("translate --resume " + model_arg() + " -o " + quoted(out), "x\n");
  CHECK(from_stdin.exit_code == 2);
  CHECK(from_stdin.err.find("--resume needs the input as a file") != std::string::npos);
  const auto from_pipe = test::run_s2s("translate --resume " + model_arg() +
                                       " -i /dev/null -o " + quoted(out));  // not a regular file
  CHECK(from_pipe.exit_code == 2);
  CHECK(from_pipe.err.find("--resume needs the input as a regular file") != std::string::npos);
  const auto to_stdout = test::run_s2s(base + " --resume");
  CHECK(to_stdout.exit_code == 2);
  CHECK(to_stdout.err.find("--resume needs an output file") != std::string::npos);

  const auto first = test::run_s2s(base + " --resume -o " + quoted(out));
  INFO(first.err);
  REQUIRE(first.exit_code == 0);
  const auto plain = test::run_s2s(base);
  CHECK(test::read_file(out) == plain.out);
  const auto journal = pipeline::read_journal(pipeline::journal_path(out));
  REQUIRE(journal.has_value());
  CHECK(journal->complete);
  CHECK(journal->lines_done == 30);
  CHECK(journal->lines_total == 30);
  CHECK(journal->output_bytes == plain.out.size());

  const auto other_options = test::run_s2s(base + " -b 2 --resume -o " + quoted(out));
  CHECK(other_options.exit_code == 2);
  CHECK(other_options.err.find("options changed: beam-size 1 -> 2") != std::string::npos);
  CHECK(test::split_lines(other_options.err).size() == 1);
  const auto other_model = test::run_s2s("translate -b 1 --maxi-batch 4 " + model_arg("ct2-onmt-relpos") +
                                         " -i " + quoted(input) + " --resume -o " + quoted(out));
  CHECK(other_model.exit_code == 2);
  CHECK(other_model.err.find("the model changed") != std::string::npos);
  const auto other_shard = test::run_s2s(base + " --shard 0/1 --resume -o " + quoted(out));
  CHECK(other_shard.exit_code == 0);  // 0/1 is the whole file: the same lines
  dir.write("in.en", numbered_lines(31));
  const auto other_input = test::run_s2s(base + " --resume -o " + quoted(out));
  CHECK(other_input.exit_code == 2);
  CHECK(other_input.err.find("the input changed") != std::string::npos);
  CHECK(test::read_file(out) == plain.out);  // refused runs leave the output alone

  dir.write("in.en", numbered_lines(30));
  dir.write("out.de", "short");
  const auto shorter = test::run_s2s(base + " --resume -o " + quoted(out));
  CHECK(shorter.exit_code == 1);
  CHECK(shorter.err.find("fewer than the") != std::string::npos);
  dir.write("out.de.s2s-journal", "{\"s2s_journal\": 1, \"lines");
  const auto broken = test::run_s2s(base + " --resume -o " + quoted(out));
  CHECK(broken.exit_code == 1);
  CHECK(broken.err.find("not an s2s journal") != std::string::npos);

  // Without --resume the output starts again and a journal would lie about it: it goes.
  const auto again = test::run_s2s(base + " -o " + quoted(out));
  CHECK(again.exit_code == 0);
  CHECK_FALSE(std::filesystem::exists(pipeline::journal_path(out)));
}

TEST_CASE("translate --resume continues from the journal's window boundary", "[cli]") {
  const test::TempDir dir("resume_cli");
  const std::string input = dir.write("in.en", numbered_lines(30));
  const std::string out = (dir.dir / "out.de").string();
  const std::string base = "translate -b 2 --format nbest --maxi-batch 4 " + model_arg() +
                           " -i " + quoted(input) + " --resume -o " + quoted(out);
  REQUIRE(test::run_s2s(base).exit_code == 0);
  const std::string whole = test::read_file(out);
  // As a run killed after its window of lines 4-11 (boundaries 0 4 12 ...), with half of the next
  // window written after the commit.
  pipeline::Journal journal = *pipeline::read_journal(pipeline::journal_path(out));
  std::size_t offset = 0, bytes = 0;
  const std::string text = test::read_file(input);
  for (int l = 0; l < 12; ++l) offset = text.find('\n', offset) + 1;
  for (int l = 0; l < 12; ++l) bytes = whole.find('\n', bytes) + 1;
  journal.lines_done = 12;
  journal.input_offset = offset;
  journal.output_bytes = bytes;
  journal.complete = false;
  pipeline::write_journal(pipeline::journal_path(out), journal);
  dir.write("out.de", whole.substr(0, bytes) + "14 ||| half a line");
  const auto resumed = test::run_s2s(base);
  INFO(resumed.err);
  CHECK(resumed.exit_code == 0);
  CHECK(resumed.err.find("continuing after line 12 (12 of 30 lines done)") != std::string::npos);
  CHECK(test::read_file(out) == whole);
  const auto done = test::run_s2s(base);
  CHECK(done.err.find("is complete (30 lines): nothing to do") != std::string::npos);
}

}  // namespace s2s

namespace s2s {

TEST_CASE("s2s progress reads journals of outputs and folders", "[cli]") {
  const test::TempDir dir("progress_cli");
  const std::string input = dir.write("in.en", numbered_lines(40));
  const std::string shards = (dir.dir / "shards").string();
  std::filesystem::create_directories(shards);
  const std::string base = "translate -b 1 --maxi-batch 4 " + model_arg() + " -i " + quoted(input) +
                           " -o " + quoted(shards) + " --resume --shard ";
  for (const char* k : {"0/3", "1/3", "2/3"}) REQUIRE(test::run_s2s(base + k).exit_code == 0);
  // Shard 1 as if stopped after 4 of its lines.
  const std::string second = shards + "/in.en.00001-of-00003";
  pipeline::Journal j = *pipeline::read_journal(pipeline::journal_path(second));
  const std::size_t total = j.lines_total;
  j.complete = false;
  j.lines_done = 4;
  j.lines_written = 6;  // 2 past the last resume point
  j.run_lines_at_start = 0;
  j.run_started = j.updated - 2;  // 2 lines/s
  pipeline::write_journal(pipeline::journal_path(second), j);

  const auto text = test::run_s2s("progress " + quoted(shards));
  INFO(text.err);
  CHECK(text.exit_code == 0);
  const std::vector<std::string> lines = test::split_lines(text.out);
  REQUIRE(lines.size() == 4);
  CHECK(lines[0].find("in.en.00000-of-00003: complete, ") != std::string::npos);
  CHECK(lines[1].find("in.en.00001-of-00003: 6 of " + std::to_string(total) + " lines") !=
        std::string::npos);
  CHECK(lines[1].find("3.0 lines/s") != std::string::npos);
  CHECK(lines[3].find("total: ") == 0);
  CHECK(lines[3].find(" of 40 lines") != std::string::npos);
  CHECK(lines[3].find("2 of 3 outputs complete") != std::string::npos);

  const auto check = test::run_s2s("progress --require-complete " + quoted(shards));
  CHECK(check.exit_code == 1);
  CHECK(check.err.find("1 of 3 outputs not complete: " + second) != std::string::npos);
  const auto json = test::run_s2s("progress --json " + quoted(second) + " " +
                                  quoted(shards + "/missing"));
  REQUIRE(test::split_lines(json.out).size() == 2);
  CHECK(test::split_lines(json.out)[0].find("\"lines_done\":4") != std::string::npos);
  CHECK(test::split_lines(json.out)[0].find("\"lines_written\":6") != std::string::npos);
  CHECK(test::split_lines(json.out)[1].find("\"journal\":null") != std::string::npos);
  REQUIRE(test::run_s2s(base + "1/3").exit_code == 0);  // resumed to the end
  CHECK(test::run_s2s("progress --require-complete " + quoted(shards)).exit_code == 0);
  const auto empty = test::run_s2s("progress " + quoted(dir.dir.string()));
  CHECK(empty.exit_code == 1);
  CHECK(empty.err.find("no s2s journals in this folder") != std::string::npos);
}

}  // namespace s2s
