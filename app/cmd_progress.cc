// s2s progress: how far runs started with --resume have come, read from their journals
// (s2s/corpus/run.h run_status), for a person watching a long job or a cluster array (issue 20):
// lines done of the total, the rate, the time left, and a run that stopped writing. With
// --require-complete it is the check an assembling job makes before concatenating shards.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "commands.h"
#include "s2s/core/error.h"
#include "s2s/corpus/run.h"

namespace s2s::app {
namespace {

struct ProgressArgs {
  std::vector<std::string> paths;
  bool json = false;
  bool require_complete = false;
};

// A journal was written at least this often by a live run (journal commits are a second apart
// at window boundaries; a window of a large model can take minutes).
constexpr double kStalledSeconds = 600;

constexpr const char* kSuffix = ".s2s-journal";

// The outputs a path names: the file itself, or each output in a folder that has a journal.
std::vector<std::string> outputs_of(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::is_directory(path, ec)) return {path};
  std::vector<std::string> outputs;
  for (const auto& entry : std::filesystem::directory_iterator(path, ec)) {
    const std::string name = entry.path().string();
    const std::size_t n = std::char_traits<char>::length(kSuffix);
    if (name.size() > n && name.compare(name.size() - n, n, kSuffix) == 0)
      outputs.push_back(name.substr(0, name.size() - n));
  }
  if (ec) throw InputError(path + ": cannot read the folder: " + ec.message());
  if (outputs.empty()) throw InputError(path + ": no s2s journals in this folder");
  std::sort(outputs.begin(), outputs.end());
  return outputs;
}

std::string duration(double seconds) {
  char text[32];
  if (seconds < 100)
    std::snprintf(text, sizeof text, "%.0f s", seconds);
  else if (seconds < 6000)
    std::snprintf(text, sizeof text, "%.0f min", seconds / 60);
  else
    std::snprintf(text, sizeof text, "%.1f h", seconds / 3600);
  return text;
}

std::string percent(std::size_t done, std::size_t total) {
  char text[32];
  std::snprintf(
      text, sizeof text, "%.1f%%",
      total == 0 ? 100.0 : 100.0 * static_cast<double>(done) / static_cast<double>(total));
  return text;
}

std::string describe(const corpus::RunStatus& j) {
  if (j.complete)
    return "complete, " + std::to_string(j.lines_done) + (j.lines_done == 1 ? " line" : " lines");
  const corpus::RunStatus& p = j;
  std::string text = std::to_string(j.lines_written) + " of " + std::to_string(j.lines_total) +
                     " lines (" + percent(j.lines_written, j.lines_total) + ")";
  if (p.lines_per_second > 0) {
    char rate[32];
    std::snprintf(rate, sizeof rate, "%.1f lines/s", p.lines_per_second);
    text += std::string(", ") + rate + ", about " + duration(p.seconds_left) + " left";
  }
  if (p.seconds_since_update > kStalledSeconds)
    text += "; last written " + duration(p.seconds_since_update) +
            " ago (stopped? run it again with --resume)";
  return text;
}

void run_progress(const ProgressArgs& args) {
  const double now =
      std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
  std::size_t outputs = 0, complete = 0, done = 0, total = 0;
  std::string unfinished;
  for (const std::string& path : args.paths) {
    for (const std::string& output : outputs_of(path)) {
      ++outputs;
      const std::optional<corpus::RunStatus> j = corpus::run_status(output, now);
      if (!j) {
        if (args.json)
          std::printf("%s\n", corpus::run_status_json(output, now).c_str());
        else
          std::printf("%s: no journal (not started, or not a --resume run)\n", output.c_str());
        unfinished += (unfinished.empty() ? "" : ", ") + output;
        continue;
      }
      complete += j->complete;
      done += j->lines_written;
      total += j->lines_total;
      if (!j->complete) unfinished += (unfinished.empty() ? "" : ", ") + output;
      if (args.json)
        std::printf("%s\n", corpus::run_status_json(output, now).c_str());
      else
        std::printf("%s: %s\n", output.c_str(), describe(*j).c_str());
    }
  }
  if (!args.json && outputs > 1)
    std::printf("total: %zu of %zu lines (%s), %zu of %zu outputs complete\n", done, total,
                percent(done, total).c_str(), complete, outputs);
  std::fflush(stdout);
  if (args.require_complete && complete < outputs)
    throw Error(std::to_string(outputs - complete) + " of " + std::to_string(outputs) +
                " outputs not complete: " + unfinished);
}

}  // namespace

void set_progress_command(CLI::App& app) {
  auto args = std::make_shared<ProgressArgs>();
  CLI::App* cmd = app.add_subcommand(
      "progress", "How far runs started with --resume have come (lines, rate, time left)");
  cmd->add_option("paths", args->paths,
                  "Output files of --resume runs (their journals are OUT.s2s-journal), or folders "
                  "holding them (every output with a journal, e.g. a --shard folder)")
      ->required()
      ->type_name("OUT...");
  cmd->add_flag("--json", args->json, "One JSON object per output instead of text");
  cmd->add_flag("--require-complete", args->require_complete,
                "Exit 1 naming the outputs that are not complete (or have no journal): the "
                "check before concatenating shards");
  cmd->callback([args]() { run_progress(*args); });
}

}  // namespace s2s::app
