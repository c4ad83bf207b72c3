// s2s translate: flag binding and output choice; the run itself is the library's
// (s2s/corpus/run.h: windows, shards, resume, the in-order writer). Ctrl-C stops within a
// decoder step (interrupt.h).
#include <csignal>
#include <memory>

#include "commands.h"
#include "interrupt.h"
#include "options.h"
#include "s2s/corpus/run.h"

namespace s2s::app {
namespace {

struct TranslateArgs {
  std::string model;
  std::string input = "-";
  std::string output = "-";
  std::string config;
  OptionFlags flags;
  bool max_length_crop = false;
  std::string maxi_batch_sort = "src";
  std::string prefix_file;
  std::string shard;  // --shard K/N, or ""
  bool resume = false;
};

void run_translate(const TranslateArgs& args) {
  // A closed pipe must show up as EPIPE from write(), not kill the process.
  std::signal(SIGPIPE, SIG_IGN);
  corpus::TranslateJob job;
  job.settings = {args.model, args.config, given_settings(args.flags), ignored_given(args.flags)};
  if (args.max_length_crop) job.settings.given.push_back({"long-lines", "truncate", "--max-length-crop"});
  job.input = args.input;
  job.output = args.output;
  job.shard = args.shard;
  job.resume = args.resume;
  job.prefix_file = args.prefix_file;
  corpus::RunControl control;
  control.stop_flag = [] { return &stop_gracefully(); };
  const corpus::RunResult result = corpus::translate(job, control);
  // The output holds the earlier runs' lines too: the message counts the file's lines.
  if (result.stopped && stopped_by_signal()) throw Interrupted(result.lines_in_output);
}

// The keys s2s applies from a model's decoder.yml, from the settings table: "beam-size, ...".
std::string model_keys() {
  std::string keys;
  for (const SettingRow& row : setting_rows(Command::translate))
    if (applies_from_model(row.key)) keys += (keys.empty() ? "" : ", ") + row.key;
  return keys;
}

}  // namespace

void set_translate_command(CLI::App& app) {
  auto args = std::make_shared<TranslateArgs>();
  CLI::App* cmd = app.add_subcommand("translate", "Translate text, one sentence per line");
  add_log_flag(*cmd);  // first: the errors of every other option reach the log too
  add_model_flags(*cmd, args->model);
  cmd->add_option("-i,--input", args->input, "Input file ('-' = stdin) [default: -]")
      ->type_name("FILE");
  add_output_flags(*cmd, args->output, args->shard, args->resume, "input");
  cmd->add_option("-c,--config", args->config,
                  "YAML file of options, keys as the long flags (flags given here win), or the "
                  "name of a shipped one: fast, quality");
  add_option_flags(*cmd, Command::translate, args->flags);
  // Marian's spellings of behaviours s2s has under its own names.
  cmd->add_flag("--max-length-crop", args->max_length_crop,
                "Marian's name for --long-lines truncate");
  cmd->add_option("--maxi-batch-sort", args->maxi_batch_sort,
                  "Accepted for Marian command lines: s2s sorts each --maxi-batch window by source "
                  "length; 'none' gives the same translations (a line's result never depends on "
                  "its batch)")
      ->check(CLI::IsMember({"src", "none"}));
  cmd->add_option("--prefix-file", args->prefix_file,
                  "Target prefixes, one per input line (empty = none): each translation starts "
                  "with its line's prefix (as --prefix, from a file of their own) [default: none]")
      ->type_name("FILE");
  add_marian_flags(*cmd, Command::translate, args->flags);
  cmd->footer("Where options come from, lowest first: the defaults shown; the model's decoder.yml\n(" +
              model_keys() + ");\n--config FILE; the flags given here. marian-decoder's other options are\n"
              "accepted, or refused saying why, as docs/marian-options.md lists.");
  cmd->callback([args]() { run_translate(*args); });
}

}  // namespace s2s::app
