// --shard K/N, run for real: the shards' outputs concatenated in order equal the whole run's,
// byte for byte, for translate (text and nbest, whose line ids are the whole file's) and score
// (tab-separated and parallel files); warnings name the lines of the whole file; more shards
// than lines give empty files; output names; usage errors.
#include <algorithm>
#include <random>
#include <string>
#include <vector>

#include "cli_runner.h"
#include "test_utils.h"

namespace s2s {
namespace {

std::string model_arg() {
  return "-m '" + test::data_path("models/marian-postnorm-swish-tiedall") + "'";
}

std::string quoted(const std::string& path) { return "'" + path + "'"; }

// Empty and blank lines, CRLF lines, invalid UTF-8 (a warning naming its line), a line over
// --max-length (split, with a warning) long enough to hold several shard cuts, and a last line
// without a newline.
std::string awkward_input() {
  const char* const words[] = {"the",   "license", "is",     "free", "software", "copy", "Grüße",
                               "world", "2007",    "permit", "and",  "of",       "this", "Hello"};
  std::mt19937 gen(20);
  const auto sentence = [&](int n) {
    std::string line;
    for (int w = 0; w < n; ++w) line += (w ? " " : "") + std::string(words[gen() % 14]);
    return line;
  };
  std::string input;
  for (int i = 0; i < 40; ++i) {
    if (i == 17)
      input += sentence(3) + " \xff\xfe " + sentence(2) + "\n";  // invalid UTF-8
    else if (i == 25)
      input += sentence(700) + ".\n";  // about 4 KB: most of the file
    else if (i % 9 == 4)
      input += "\n";
    else if (i % 11 == 6)
      input += "  \r\n";
    else if (i % 5 == 2)
      input += sentence(1 + static_cast<int>(gen() % 8)) + "\r\n";
    else
      input += sentence(1 + static_cast<int>(gen() % 10)) + "\n";
  }
  return input + sentence(4);
}

std::string shard_name(std::size_t k, std::size_t n) {
  char label[64];
  std::snprintf(label, sizeof label, "%05zu-of-%05zu", k, n);
  return label;
}

// The lines of stderr that are warnings, sorted (shards print them in their own runs).
std::vector<std::string> warnings(const std::string& err) {
  std::vector<std::string> lines = test::split_lines(err);
  lines.erase(std::remove_if(lines.begin(), lines.end(),
                             [](const std::string& l) { return l.rfind("s2s: warning:", 0) != 0; }),
              lines.end());
  std::sort(lines.begin(), lines.end());
  return lines;
}

// Runs `command` once per shard of n with `shard_args` (where {k} and {n} are filled in) and
// returns the outputs concatenated in order, read from `output` with {shard} replaced; the
// shards' warnings are appended to `warned`.
std::string run_shards(const std::string& command, std::size_t n, const std::string& output,
                       std::vector<std::string>& warned) {
  std::string all;
  for (std::size_t k = 0; k < n; ++k) {
    const auto r =
        test::run_s2s(command + " --shard " + std::to_string(k) + "/" + std::to_string(n));
    INFO("shard " << k << "/" << n << ": " << r.err);
    REQUIRE(r.exit_code == 0);
    CHECK(r.out.empty());
    std::string path = output;
    path.replace(path.find("{shard}"), 7, shard_name(k, n));
    REQUIRE(std::filesystem::exists(path));
    all += test::read_file(path);
    for (const std::string& w : warnings(r.err)) warned.push_back(w);
  }
  std::sort(warned.begin(), warned.end());
  return all;
}

}  // namespace

TEST_CASE("translate shards concatenated equal the whole run", "[cli]") {
  const test::TempDir dir("shard_cli");
  const std::string input = dir.write("in.en", awkward_input());
  const std::string out_dir = (dir.dir / "out").string();
  std::filesystem::create_directories(out_dir);
  // Text, and n-best lines (line ids of the whole file, scores whose last digits depend on the
  // batch): shard cuts move to window boundaries (pipeline/windows.h), so shards batch the same
  // lines together as the whole run. Small windows, so that the 41 lines make several; with
  // --workers the first window holds a batch per worker.
  for (const char* options : {"-b 1 --maxi-batch 4", "-b 4 --format nbest --n-best --maxi-batch 3",
                              "-b 2 --format nbest --n-best --batch-size 2 --maxi-batch 8 "
                              "--workers 2 --threads 1"}) {
    const std::string base =
        std::string("translate ") + options + " " + model_arg() + " -i " + quoted(input);
    const auto whole = test::run_s2s(base);
    INFO(options << ": " << whole.err);
    REQUIRE(whole.exit_code == 0);
    REQUIRE(test::count_lines(whole.out) >= 41);
    const std::vector<std::string> whole_warnings = warnings(whole.err);
    CHECK(whole_warnings.size() >= 2);  // line 18's bytes, line 26's length
    for (std::size_t n : {1, 2, 7}) {
      INFO(n << " shards");
      std::vector<std::string> warned;
      // -o FOLDER: FOLDER/<input name>.KKKKK-of-NNNNN
      const std::string all =
          run_shards(base + " -o " + quoted(out_dir), n, out_dir + "/in.en.{shard}", warned);
      CHECK(all == whole.out);
      CHECK(warned == whole_warnings);  // the same lines named: the whole file's numbers
      std::size_t used = 0;  // shards with lines
      for (std::size_t k = 0; k < n; ++k)
        used += std::filesystem::file_size(out_dir + "/in.en." + shard_name(k, n)) > 0;
      CHECK(used >= std::min<std::size_t>(n, 2));  // (line 26 holds most of the bytes)
    }
  }
}

TEST_CASE("translate with more shards than lines writes empty files for the empty shards",
          "[cli]") {
  const test::TempDir dir("shard_cli");
  const std::string input = dir.write("in.en", "Hello world.\n\nthe license is free");
  const auto whole = test::run_s2s("translate -b 1 " + model_arg() + " -i " + quoted(input));
  REQUIRE(whole.exit_code == 0);
  std::vector<std::string> warned;
  // {shard} in -o. Windows of one line: shards cut between any lines.
  const std::string pattern = (dir.dir / "part-{shard}.de").string();
  const std::string all = run_shards("translate -b 1 --maxi-batch 1 " + model_arg() + " -i " +
                                         quoted(input) + " -o " + quoted(pattern),
                                     7, pattern, warned);
  CHECK(all == whole.out);
  std::size_t empty = 0;
  for (std::size_t k = 0; k < 7; ++k)
    empty += std::filesystem::file_size(dir.dir / ("part-" + shard_name(k, 7) + ".de")) == 0;
  CHECK(empty >= 4);  // three lines, seven shards
  // With the default --maxi-batch (1000) a file of three lines is one window (windows.h), so
  // one of two shards holds all of it and the other nothing (the cut moved to line 0).
  std::vector<std::string> halves;
  for (int k = 0; k < 2; ++k) {
    const auto shard = test::run_s2s("translate -b 1 " + model_arg() + " -i " + quoted(input) +
                                     " -o " + quoted(dir.dir.string()) + " --shard " +
                                     std::to_string(k) + "/2");
    CHECK(shard.exit_code == 0);
    halves.push_back(test::read_file(dir.dir / ("in.en." + shard_name(k, 2))));
  }
  CHECK(halves == std::vector<std::string>{"", whole.out});
  // An empty file: every shard's output exists and is empty.
  const std::string nothing = dir.write("empty.en", "");
  const auto r = test::run_s2s("translate -b 1 " + model_arg() + " -i " + quoted(nothing) + " -o " +
                               quoted(dir.dir.string()) + " --shard 2/3");
  CHECK(r.exit_code == 0);
  CHECK(test::read_file(dir.dir / "empty.en.00002-of-00003").empty());
}

TEST_CASE("translate shards with a prefix file and a plain output file", "[cli]") {
  const test::TempDir dir("shard_cli");
  const std::string input = dir.write("in.en", awkward_input());
  std::string prefixes;
  for (int i = 0; i < 41; ++i) prefixes += i % 3 == 0 ? "Die\n" : "\n";
  const std::string prefix_file = dir.write("prefixes.de", prefixes);
  const std::string base = "translate -b 1 " + model_arg() + " -i " + quoted(input) +
                           " --prefix-file " + quoted(prefix_file);
  const auto whole = test::run_s2s(base);
  INFO(whole.err);
  REQUIRE(whole.exit_code == 0);
  std::string all;
  for (std::size_t k = 0; k < 2; ++k) {
    const std::string out = (dir.dir / ("plain" + std::to_string(k))).string();
    const auto r = test::run_s2s(base + " --shard " + std::to_string(k) + "/2 -o " + quoted(out));
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    all += test::read_file(out);  // -o FILE: the file itself
  }
  CHECK(all == whole.out);
}

TEST_CASE("score shards concatenated equal the whole run", "[cli]") {
  const test::TempDir dir("shard_cli");
  const std::vector<std::string> sources = test::split_lines(awkward_input() + "\n");
  std::string source_text, target_text, tsv;
  for (std::size_t i = 0; i < sources.size(); ++i) {
    std::string source = sources[i];
    const bool crlf = !source.empty() && source.back() == '\r';
    if (crlf) source.pop_back();
    const std::string target = i % 4 == 1 ? "" : "die Lizenz ist frei";
    const std::string end = crlf ? "\r\n" : "\n";
    const bool last = i + 1 == sources.size();  // the last line has no newline
    source_text += source + (last ? "" : end);
    target_text += target + (last ? "" : end);
    tsv += source + "\t" + target + (last ? "" : end);
  }
  const std::string source_file = dir.write("src.en", source_text);
  const std::string target_file = dir.write("tgt.de", target_text);
  const std::string tsv_file = dir.write("pairs.tsv", tsv);
  const std::string out_dir = (dir.dir / "out").string();
  std::filesystem::create_directories(out_dir);
  // One pair per batch, and batches of 2 in windows of 2, 4, 4, ...: a score's last digits depend
  // on its batch (docs/user-guide.md), so shards are cut at window boundaries and batch as the
  // whole run.
  const std::string score = "score " + model_arg() + " --max-length 200 --batch-size 1";
  for (const std::string& input :
       {" -i " + quoted(tsv_file),
        " --source " + quoted(source_file) + " --target " + quoted(target_file)}) {
    const auto whole = test::run_s2s(score + input);
    INFO(input << ": " << whole.err);
    REQUIRE(whole.exit_code == 0);
    REQUIRE(test::count_lines(whole.out) == static_cast<int>(sources.size()));
    const std::vector<std::string> whole_warnings = warnings(whole.err);
    CHECK(!whole_warnings.empty());
    const std::string named = input.find("--source") != std::string::npos ? "src.en" : "pairs.tsv";
    for (std::size_t n : {1, 2, 7}) {
      INFO(n << " shards");
      std::vector<std::string> warned;
      const std::string all = run_shards(score + input + " -o " + quoted(out_dir), n,
                                         out_dir + "/" + named + ".{shard}", warned);
      CHECK(all == whole.out);
      CHECK(warned == whole_warnings);
    }
    const std::string batched =
        "score " + model_arg() + " --max-length 200 --batch-size 2 --maxi-batch 4" + input;
    const auto reference = test::run_s2s(batched);
    REQUIRE(reference.exit_code == 0);
    for (std::size_t n : {2, 7}) {
      INFO(n << " shards, batches of 2");
      std::vector<std::string> warned;
      CHECK(run_shards(batched + " -o " + quoted(out_dir), n, out_dir + "/" + named + ".{shard}",
                       warned) == reference.out);
    }
  }
  // With the default --maxi-batch a file of 41 pairs is one window (windows.h), so one of two
  // shards holds all of it and the other nothing, for every input of score.
  for (const std::string& input :
       {" -i " + quoted(tsv_file),
        " --source " + quoted(source_file) + " --target " + quoted(target_file)}) {
    const std::string named = input.find("--source") != std::string::npos ? "src.en" : "pairs.tsv";
    const std::string plain = "score " + model_arg() + " --max-length 200" + input;
    const auto whole = test::run_s2s(plain);
    REQUIRE(whole.exit_code == 0);
    std::vector<std::string> halves, warned;
    for (std::size_t k = 0; k < 2; ++k) {
      const auto shard = test::run_s2s(plain + " -o " + quoted(out_dir) + " --shard " +
                                       std::to_string(k) + "/2");
      INFO(input << " shard " << k << ": " << shard.err);
      REQUIRE(shard.exit_code == 0);
      halves.push_back(test::read_file(out_dir + "/" + named + "." + shard_name(k, 2)));
    }
    CHECK(halves == std::vector<std::string>{"", whole.out});
  }
  // A target file without the shard's lines is an error naming both files, before any score.
  const std::string short_target = dir.write("short.de", "a\nb\n");
  const auto r = test::run_s2s(score + " --source " + quoted(source_file) + " --target " +
                               quoted(short_target) + " --shard 1/2 -o " + quoted(out_dir));
  CHECK(r.exit_code == 1);
  CHECK(r.err.find("short.de has fewer lines than") != std::string::npos);
  const std::string long_target = dir.write("long.de", target_text + "\nmore\n");
  const auto r2 = test::run_s2s(score + " --source " + quoted(source_file) + " --target " +
                                quoted(long_target) + " --shard 0/2 -o " + quoted(out_dir));
  CHECK(r2.exit_code == 0);  // only the last shard reaches the end of the files
  const auto r3 = test::run_s2s(score + " --source " + quoted(source_file) + " --target " +
                                quoted(long_target) + " --shard 0/1 -o " + quoted(out_dir));
  CHECK(r3.exit_code == 1);
  CHECK(r3.err.find("long.de has more lines than") != std::string::npos);
}

TEST_CASE("shard usage errors are one line with exit code 2", "[cli]") {
  const test::TempDir dir("shard_cli");
  const std::string input = dir.write("in.en", "Hello world.\n");
  const std::string file = " -i " + quoted(input);
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"translate --shard 0/2", "standard input cannot be sharded"},
      {"translate -i - --shard 0/2", "standard input cannot be sharded"},
      {"score --shard 0/2", "standard input cannot be sharded"},
      {"translate --shard 2/2" + file, "K must be below N"},
      {"translate --shard 0/0" + file, "N must be at least 1"},
      {"translate --shard 3" + file, "expected K/N"},
      {"translate --shard a/b" + file, "expected K/N"},
      {"translate --shard 1/2/3" + file, "expected K/N"},
      {"score --shard 5/4" + file, "K must be below N"},
      {"score --summary --shard 0/2" + file, "--summary"},
      {"translate --shard 0/2 -i /dev/null", "regular file"},
  };
  for (const auto& [args, message] : cases) {
    const auto r = test::run_s2s(args + " " + model_arg());
    INFO(args << ": " << r.err);
    CHECK(r.exit_code == 2);
    CHECK(r.err.find(message) != std::string::npos);
    CHECK(test::count_lines(r.err) == 1);
  }
}

}  // namespace s2s
