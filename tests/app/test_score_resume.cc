// score --resume, run for real: what is refused (standard input or output, --summary, a changed
// target or n-best sources file), and a resume from a journal written by hand at a window
// boundary, for each kind of input (tab-separated pairs, --source/--target, --n-best), where the
// second file must be read from the same line. resume_loop.sh (CTest score_resume_loop) kills and
// resumes runs at random moments.
#include <string>

#include "cli_runner.h"
#include "s2s/pipeline/journal.h"
#include "test_utils.h"

namespace s2s {
namespace {

std::string quoted(const std::string& path) { return "'" + path + "'"; }

const std::string kModel =
    "-m " + quoted(test::data_path("models/marian-postnorm-swish-tiedall"));

// Line i of a side: empty lines among them (an empty side is scored as </s> alone).
std::string side(int n, const std::string& words) {
  std::string text;
  for (int i = 0; i < n; ++i) text += i % 7 == 3 ? "\n" : words + " " + std::to_string(i) + "\n";
  return text;
}

// The byte offset just past the first `lines` lines of `text`.
std::size_t after_lines(const std::string& text, int lines) {
  std::size_t offset = 0;
  for (int l = 0; l < lines; ++l) offset = text.find('\n', offset) + 1;
  return offset;
}

}  // namespace

TEST_CASE("score --resume refuses what it cannot continue, in one line", "[cli]") {
  const test::TempDir dir("score_resume");
  const std::string source = dir.write("src.txt", side(30, "the license is free"));
  const std::string target = dir.write("tgt.txt", side(30, "die Lizenz ist frei"));
  const std::string out = (dir.dir / "scores.txt").string();
  const std::string files = " --source " + quoted(source) + " --target " + quoted(target);

  const auto from_stdin =
      test::run_s2s("score --resume " + kModel + " -o " + quoted(out), "a\tb\n");
  CHECK(from_stdin.exit_code == 2);
  CHECK(from_stdin.err.find("--resume needs the input as a file (-i FILE)") != std::string::npos);
  const auto from_pipe =
      test::run_s2s("score --resume " + kModel + " -i /dev/null -o " + quoted(out));
  CHECK(from_pipe.exit_code == 2);
  CHECK(from_pipe.err.find("needs the input as a regular file") != std::string::npos);
  const auto to_stdout = test::run_s2s("score --resume " + kModel + files);
  CHECK(to_stdout.exit_code == 2);
  CHECK(to_stdout.err.find("--resume needs an output file") != std::string::npos);
  const auto summary =
      test::run_s2s("score --resume --summary " + kModel + files + " -o " + quoted(out));
  CHECK(summary.exit_code == 2);
  CHECK(summary.err.find("--summary prints one corpus figure at the end") != std::string::npos);

  const std::string base = "score --resume " + kModel + files + " -o " + quoted(out);
  const auto first = test::run_s2s(base);
  INFO(first.err);
  REQUIRE(first.exit_code == 0);
  CHECK(test::read_file(out) == test::run_s2s("score " + kModel + files).out);
  dir.write("tgt.txt", side(30, "die Lizenz ist nicht frei"));
  const auto other_target = test::run_s2s(base);
  CHECK(other_target.exit_code == 2);
  CHECK(other_target.err.find("options changed: target file") != std::string::npos);
  CHECK(test::split_lines(other_target.err).size() == 1);
  const auto other_option = test::run_s2s(base + " --normalize 1");
  CHECK(other_option.exit_code == 2);
  CHECK(other_option.err.find("normalize 0 -> 1") != std::string::npos);
  const auto translate_journal = test::run_s2s("translate --resume " + kModel + " -i " +
                                               quoted(source) + " -o " + quoted(out));
  CHECK(translate_journal.exit_code == 2);
  CHECK(translate_journal.err.find("written by s2s score, not translate") != std::string::npos);
}

TEST_CASE("score --resume continues each kind of input from the journal's window boundary",
          "[cli]") {
  const test::TempDir dir("score_resume");
  const std::string source_text = side(30, "the license is free");
  const std::string target_text = side(30, "die Lizenz ist frei");
  const std::string source = dir.write("src.txt", source_text);
  const std::string target = dir.write("tgt.txt", target_text);
  std::string tsv_text, nbest_text;
  const auto sources = test::split_lines(source_text), targets = test::split_lines(target_text);
  for (std::size_t i = 0; i < 30; ++i) {
    tsv_text += sources[i] + "\t" + targets[i] + "\n";
    nbest_text += std::to_string(i) + " ||| " + targets[i] + " ||| F0= -1.5 ||| -1.5\n";
  }
  const std::string tsv = dir.write("pairs.tsv", tsv_text);
  const std::string nbest = dir.write("list.nbest", nbest_text);
  const std::string out = (dir.dir / "scores.txt").string();
  struct Kind {
    const char* name;
    std::string inputs, first_file;
  };
  const Kind kinds[] = {
      {"tab-separated", " --word-scores -i " + quoted(tsv), tsv_text},
      {"source and target",
       " --word-scores --source " + quoted(source) + " --target " + quoted(target), source_text},
      {"n-best", " --source " + quoted(source) + " --n-best " + quoted(nbest), nbest_text},
  };
  for (const Kind& kind : kinds) {
    SECTION(kind.name) {
      // Windows of 2, then 4 pairs: boundaries 2, 6, 10, 14, ...
      const std::string base = "score --batch-size 2 --maxi-batch 4 " + kModel +
                               kind.inputs + " --resume -o " + quoted(out);
      const auto plain = test::run_s2s(base.substr(0, base.find(" --resume")));
      REQUIRE(plain.exit_code == 0);
      REQUIRE(test::split_lines(plain.out).size() == 30);
      REQUIRE(test::run_s2s(base).exit_code == 0);
      CHECK(test::read_file(out) == plain.out);
      // As a run killed after the window of lines 7-10, with part of the next one written after
      // the commit.
      pipeline::Journal journal = *pipeline::read_journal(pipeline::journal_path(out));
      const std::size_t bytes = after_lines(plain.out, 10);
      journal.lines_done = 10;
      journal.input_offset = after_lines(kind.first_file, 10);
      journal.output_bytes = bytes;
      journal.complete = false;
      pipeline::write_journal(pipeline::journal_path(out), journal);
      dir.write("scores.txt", plain.out.substr(0, bytes) + "-12.5 ||| WordScores= -1");
      const auto resumed = test::run_s2s(base);
      INFO(resumed.err);
      CHECK(resumed.exit_code == 0);
      CHECK(resumed.err.find("continuing after line 10 (10 of 30 lines done)") !=
            std::string::npos);
      CHECK(test::read_file(out) == plain.out);
      const auto done = test::run_s2s(base);
      CHECK(done.err.find("is complete (30 lines): nothing to do") != std::string::npos);
      CHECK(test::read_file(out) == plain.out);
    }
  }
}

}  // namespace s2s
