// s2s score: flag binding and output choice; the run itself is the library's
// (s2s/corpus/run.h): log-probabilities of (source, target) pairs, like marian-scorer, from
// --source/--target files, tab-separated lines, or --source plus an n-best list to rescore.
#include <csignal>
#include <memory>

#include "commands.h"
#include "interrupt.h"
#include "options.h"
#include "s2s/corpus/run.h"

namespace s2s::app {
namespace {

struct ScoreArgs {
  std::string model;
  std::string source, target, input = "-", output = "-";
  std::string nbest;  // an n-best list to rescore
  std::string config;
  OptionFlags flags;
  std::string shard;  // --shard K/N, or ""
  bool resume = false;
};

void run_score(const ScoreArgs& args) {
  std::signal(SIGPIPE, SIG_IGN);
  corpus::ScoreJob job;
  job.settings = {args.model, args.config, given_settings(args.flags), ignored_given(args.flags)};
  job.source = args.source;
  job.target = args.target;
  job.nbest = args.nbest;
  job.input = args.input;
  job.output = args.output;
  job.shard = args.shard;
  job.resume = args.resume;
  corpus::RunControl control;
  control.stop_flag = [] { return &stop_gracefully(); };
  const corpus::RunResult result = corpus::score(job, control);
  // The output holds the earlier runs' lines too: the message counts the file's lines.
  if (result.stopped && stopped_by_signal()) throw Interrupted(result.lines_in_output, "scored");
}

}  // namespace

void set_score_command(CLI::App& app) {
  auto args = std::make_shared<ScoreArgs>();
  CLI::App* cmd = app.add_subcommand(
      "score", "Score (source, target) pairs: log-probability of the target, like marian-scorer");
  add_log_flag(*cmd);  // first: the errors of every other option reach the log too
  add_model_flags(*cmd, args->model);
  cmd->add_option("--source", args->source, "Source sentences, one per line [default: none]");
  cmd->add_option("--target", args->target,
                  "Target sentences, one per line (as many as --source) [default: none]");
  // marian-scorer's -t SOURCE TARGET.
  cmd->add_option_function<std::vector<std::string>>(
         "-t,--train-sets",
         [args](const std::vector<std::string>& files) {
           args->source = files[0];
           args->target = files[1];
         },
         "Marian's spelling of --source FILE --target FILE")
      ->expected(2)
      ->type_name("SOURCE TARGET");
  cmd->add_option("-i,--input", args->input,
                  "Tab-separated 'source<TAB>target' lines ('-' = stdin) [default: -]");
  add_output_flags(*cmd, args->output, args->shard, args->resume, "inputs");
  cmd->add_option("--n-best", args->nbest,
                  "Rescore a Marian/Moses n-best list (needs --source); adds a feature to each line "
                  "[default: none]");
  cmd->add_option("-c,--config", args->config,
                  "YAML file of options, keys as the long flags below (flags given here win), or "
                  "the name of a shipped one [default: none]");
  add_option_flags(*cmd, Command::score, args->flags);
  add_marian_flags(*cmd, Command::score, args->flags);
  cmd->footer("marian-scorer's other options are accepted, or refused saying why, as\n"
              "docs/marian-options.md lists.");
  cmd->callback([args]() { run_score(*args); });
}

}  // namespace s2s::app
