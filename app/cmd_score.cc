// s2s score: log-probabilities of (source, target) pairs, like marian-scorer.
// Pairs come from --source/--target files (same line counts), from tab-separated lines (-i or
// stdin), or from --source plus a Marian/Moses n-best list (--n-best), which is written back with
// one more feature (pipeline/pair_reader.h, pipeline/score_output.h). Output keeps input order
// and one record per pair. Options come from score's settings table (pipeline/settings.h): its
// defaults, then --config FILE, then the flags.
//
// A side longer than --max-length tokens is truncated to fit, with a warning (a pair cannot be
// split: its two sides must stay aligned), or is an error with --long-lines fail.
//
// Pairs are read in windows that grow from one batch to --maxi-batch pairs, counted from the
// input's first line (pipeline/windows.h; a file of at most --maxi-batch pairs is one window),
// so that a run resumed with --resume (a journal as translate's, app/resume.h) forms the same
// batches and writes the same bytes as one whole run.
#include <csignal>
#include <cstdio>
#include <memory>
#include <optional>

#include "commands.h"
#include "interrupt.h"
#include "io.h"
#include "options.h"
#include "resume.h"
#include "shard_output.h"
#include "s2s/core/log.h"
#include "s2s/core/threads.h"
#include "s2s/formats/detect.h"
#include "s2s/pipeline/journal.h"
#include "s2s/pipeline/languages.h"
#include "s2s/pipeline/long_lines.h"
#include "s2s/pipeline/pair_reader.h"
#include "s2s/pipeline/score_output.h"
#include "s2s/pipeline/settings.h"
#include "s2s/pipeline/windows.h"

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

// Every combination works or is refused here, before the model loads; never silently ignored.
void check_combinations(const ScoreArgs& args, const pipeline::ScoreSettings& s) {
  if (!s.summary.empty() && !pipeline::is_summary_kind(s.summary))
    throw UsageError("--summary " + s.summary +
                     ": not a corpus figure (cross-entropy, ce-mean, ce-mean-words, ce-sum, "
                     "perplexity)");
  if (s.format == pipeline::OutputFormat::nbest)
    throw UsageError("--format nbest: score prints text or jsonl (an n-best list is rescored "
                     "with --n-best FILE)");
  if (!s.summary.empty() && s.score.normalize != 0.0f)
    throw UsageError("--summary cannot be combined with --normalize (as in marian-scorer)");
  if (!s.summary.empty() && (s.word_scores || !args.nbest.empty()))
    throw UsageError(std::string("--summary prints one corpus figure; it cannot be combined with ") +
                     (s.word_scores ? "--word-scores" : "--n-best"));
  if (!args.nbest.empty() && s.format == pipeline::OutputFormat::jsonl)
    throw UsageError("--n-best writes the list back with one more feature (Marian's n-best "
                     "format); --format jsonl does not apply to it");
  if (s.score.alignment.on() && (!s.summary.empty() || !args.nbest.empty()))
    throw UsageError(std::string("--alignment cannot be combined with ") +
                     (s.summary.empty() ? "--n-best (an n-best line has no place for it)"
                                        : "--summary (it prints one corpus figure)"));
  if (!args.nbest.empty() && s.word_scores)
    throw UsageError("--word-scores cannot be combined with --n-best (an n-best line has no "
                     "place for them)");
  if (!args.nbest.empty() && args.source.empty())
    throw UsageError("--n-best needs --source FILE (the sources of the list)");
  if (args.nbest.empty() && args.source.empty() != args.target.empty())
    throw UsageError("--source and --target go together (or give tab-separated pairs)");
  if (!args.shard.empty() && !s.summary.empty())
    throw UsageError("--summary prints one corpus figure: the shards' figures would not add up "
                     "to it (score the shards without --summary)");
  if (args.resume && !s.summary.empty())
    throw UsageError("--summary prints one corpus figure at the end: a resumed run cannot "
                     "continue it (score with --resume without --summary)");
}

// The file --shard cuts: the n-best list, the source file, or the tab-separated input.
const std::string& sharded_file(const ScoreArgs& args) {
  return !args.nbest.empty() ? args.nbest : !args.source.empty() ? args.source : args.input;
}

// How the file --shard and --resume read is given, for messages.
const char* sharded_flag(const ScoreArgs& args) {
  return !args.nbest.empty() ? "--n-best FILE" : !args.source.empty() ? "--source FILE" : "-i FILE";
}

// What a fresh journal of this run says: app/resume.h's fields for the first file's range, plus
// the options that change scores and the fingerprint of the other input file.
pipeline::Journal journal_of_run(const ScoreArgs& args, const std::string& output_path,
                                 const pipeline::ShardRange& range,
                                 const std::string& model_folder,
                                 const pipeline::ScoreSettings& settings) {
  const File input(sharded_file(args), false);
  pipeline::Journal journal =
      fresh_journal("score", sharded_file(args), input.fd(), output_path, range, model_folder);
  journal.options = pipeline::result_options(settings);
  if (!args.nbest.empty())  // the list's sentence numbers point into the source file
    journal.options["n-best sources file"] = pipeline::path_fingerprint(args.source);
  else if (!args.source.empty())
    journal.options["target file"] = pipeline::path_fingerprint(args.target);
  return journal;
}

pipeline::PairReader open_pairs(const ScoreArgs& args, const pipeline::ScoreSettings& s,
                                const File& input, const std::atomic<bool>* stop,
                                const pipeline::Shard* shard,
                                const pipeline::WindowSchedule& windows) {
  const std::string name = args.input == "-" ? "standard input" : args.input;
  if (!args.nbest.empty())
    return pipeline::PairReader::nbest(input.fd(), args.nbest, args.source, s.skip_bad, stop,
                                       shard, &windows);
  if (!args.source.empty())
    return pipeline::PairReader::parallel(args.source, args.target, stop, shard, &windows);
  return pipeline::PairReader::tab_separated(input.fd(), name, s.skip_bad, stop, shard,
                                             &windows);
}

// A side of a pair over the token limit: truncated to fit with a warning (--long-lines split or
// truncate: a pair cannot be split, its sides must stay aligned), or an InputError (fail).
void fit_to_limit(std::string& text, std::size_t line, const char* side,
                  const pipeline::TokenLimit& limit, pipeline::LongLines mode,
                  const pipeline::TokenCounter& count) {
  const std::size_t tokens = text.size() <= pipeline::kCountBytes
                                 ? count(text)
                                 : pipeline::count_in_chunks(text, limit.tokens, count).tokens;
  if (tokens <= limit.tokens) return;
  const std::string problem = pipeline::too_long_message(line, tokens, limit, side);
  if (mode == pipeline::LongLines::fail)
    throw InputError(problem + "; --long-lines truncate would score it truncated");
  text = pipeline::truncate_to_limit(text, limit.tokens, count);
  log::warning(problem + ": truncated to fit (a pair cannot be split)");
}

void run_score(const ScoreArgs& args, const Context& context) {
  std::signal(SIGPIPE, SIG_IGN);
  pipeline::ScoreSettings s;  // defaults < --config < flags
  const std::string config = config_path(args.config, context);
  pipeline::ConfigFileNotes config_notes;
  if (!config.empty()) config_notes = pipeline::read_yaml_options(config, s);
  apply_flags(args.flags, s);
  if (!args.model.empty() && !config_notes.model.empty())
    config_notes.ignored.push_back("model (-m given)");
  check_combinations(args, s);
  const std::optional<pipeline::Shard> shard =
      given_shard(args.shard, sharded_file(args), sharded_flag(args));
  const std::string output_path =
      shard ? shard_output(args.output, sharded_file(args), *shard) : args.output;
  const bool reads_input = args.nbest.empty() && args.source.empty();
  refuse_output_over_input(output_path, {{reads_input ? args.input : "", "-i"},
                                         {args.source, "--source"},
                                         {args.target, "--target"},
                                         {args.nbest, "--n-best"}});
  if (args.resume) check_resumable(sharded_file(args), sharded_flag(args), output_path);
  if (s.quiet) log::set_level(log::Level::quiet);
  note_ignored(args.flags, config_notes, config);
  set_num_threads(static_cast<int>(s.threads));
  const std::atomic<bool>& stop = stop_gracefully();  // stops between batches
  const File input(args.nbest.empty() ? args.input : args.nbest, false);
  // Windows grow from one batch to --maxi-batch pairs, counted from the input's first line: the
  // first scores come out after one batch, a stop loses at most the window in progress, and
  // shards and resumed runs batch as one whole run. A file of at most --maxi-batch pairs is one
  // window (pipeline/windows.h), as in translate: its batches are sorted all together.
  const bool parallel_files = args.nbest.empty() && !args.source.empty();
  const std::optional<File> source_file =
      parallel_files ? std::optional<File>(std::in_place, args.source, false) : std::nullopt;
  const pipeline::WindowSchedule windows = pipeline::WindowSchedule::for_input(
      parallel_files ? source_file->fd() : input.fd(), sharded_file(args),
      static_cast<std::size_t>(s.score.batch_size), static_cast<std::size_t>(s.maxi_batch));
  // A resumed run reads a byte range of the input: the shard's, or the whole file's.
  const pipeline::Shard whole;
  const pipeline::Shard* cut = shard ? &*shard : args.resume ? &whole : nullptr;
  pipeline::PairReader reader = open_pairs(args, s, input, &stop, cut, windows);
  const std::string model_folder =
      model_path(args.model.empty() ? config_notes.model : args.model, context);
  const auto model = formats::load_model(
      model_folder, formats::SpmPaths{s.source_spm, s.target_spm}, s.precision);
  if (pipeline::has_language_tokens(*model))  // docs/models.md
    throw UsageError("score does not place NLLB-200 / M2M-100 language tokens yet: its scores "
                     "would not be the model's");
  const pipeline::Scorer scorer(model, s.score);
  std::unique_ptr<ResumableOutput> resumable;
  std::optional<File> output;
  if (args.resume) {
    resumable = std::make_unique<ResumableOutput>(
        output_path, journal_of_run(args, output_path, reader.range(), model_folder, s));
    if (resumable->complete()) return;
    reader.skip_done(resumable->journal().lines_done, resumable->journal().input_offset);
  } else {
    output.emplace(output_path, true);
    // A journal left by an earlier --resume run no longer describes the output just truncated.
    if (output_path != "-") std::remove(pipeline::journal_path(output_path).c_str());
  }
  const int output_fd = resumable ? resumable->fd() : output->fd();
  pipeline::ScoreFormatter formatter(
      model->codec(), {s.format, s.word_scores, !args.nbest.empty(), s.n_best_feature, s.summary,
                       s.score.alignment});
  Progress progress(!s.quiet && log::stderr_is_terminal() && args.output != "-");
  const pipeline::TokenLimit limit =
      pipeline::TokenLimit::of(static_cast<std::size_t>(s.max_length), 0);
  const text::TextCodec& codec = model->codec();
  const pipeline::TokenCounter source_count = [&](const std::string& t) {
    return codec.encode_source(t).size();
  };
  const pipeline::TokenCounter target_count = [&](const std::string& t) {
    return codec.encode_target(t).size();
  };
  std::vector<pipeline::PairEntry> entries;
  std::vector<std::pair<std::string, std::string>> pairs;
  // Where this run starts in the output (earlier runs' lines and bytes, with --resume).
  const std::size_t lines_start = resumable ? resumable->journal().lines_done : 0;
  const std::uint64_t bytes_start = resumable ? resumable->journal().output_bytes : 0;
  std::size_t line = reader.range().lines_before() + lines_start;  // of the whole input, read
  std::size_t done = 0;     // pairs written by this run
  std::uint64_t bytes = 0;  // bytes written by this run
  while (reader.next(entries, windows.end_after(line) - line)) {
    line += entries.size();
    pairs.clear();
    for (pipeline::PairEntry& e : entries) {
      if (e.skipped) continue;
      fit_to_limit(e.source, e.line, "source ", limit, s.long_lines, source_count);
      fit_to_limit(e.target, e.line, "target ", limit, s.long_lines, target_count);
      pairs.emplace_back(std::move(e.source), std::move(e.target));
    }
    const std::vector<pipeline::PairScore> scores = scorer.score(pairs, &stop);
    if (scores.size() != pairs.size()) break;  // stopped: this window is not written
    for (std::size_t i = 0, k = 0; i < entries.size(); ++i) {
      if (entries[i].skipped) continue;
      if (scores[k++].beyond_positions)
        log::warning("pair " + std::to_string(entries[i].line) + " is longer than the model's " +
                     std::to_string(model->config().max_positions) +
                     " positions; scored with the last position repeated, as Marian does");
    }
    std::string out;
    formatter.append(entries, scores, out);
    if (!write_all(output_fd, out)) return;  // reader gone: stop quietly
    done += entries.size();
    bytes += out.size();
    if (resumable && windows.is_boundary(line))  // a resume point: the same windows follow
      resumable->reached_boundary(lines_start + done, reader.offset(), bytes_start + bytes);
    else if (resumable)
      resumable->written(lines_start + done);
    progress.update(done, false);
    if (stop.load()) break;
  }
  progress.update(done, true);
  if (stop.load()) {
    if (resumable) resumable->finish();  // resumable from its last window boundary
    // The output holds the earlier runs' lines too: the message counts the file's lines.
    if (stopped_by_signal()) throw Interrupted(lines_start + done, "scored");
    return;
  }
  const std::string last = formatter.finish();  // the --summary record, if any
  if (!write_all(output_fd, last)) return;
  if (resumable)
    resumable->finish_complete(lines_start + done, reader.range().end,
                               bytes_start + bytes + last.size());
}

}  // namespace

void set_score_command(CLI::App& app, const Context& context) {
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
  cmd->add_option("-o,--output", args->output,
                  "Output file ('-' = stdout); with --shard also a folder or a name with {shard} "
                  "[default: -]")
      ->type_name("FILE");
  add_shard_flag(*cmd, args->shard);
  cmd->add_flag("--resume", args->resume,
                "Keep a journal next to the output (OUT.s2s-journal) and continue an interrupted "
                "run where it stopped: same command line plus --resume; refused when the inputs, "
                "model or options changed; a complete output is left as it is");
  cmd->add_option("--n-best", args->nbest,
                  "Rescore a Marian/Moses n-best list (needs --source); adds a feature to each line "
                  "[default: none]");
  cmd->add_option("-c,--config", args->config,
                  "YAML file of options, keys as the long flags below (flags given here win), or "
                  "the name of a shipped one [default: none]");
  add_option_flags(*cmd, pipeline::Command::score, args->flags);
  add_marian_flags(*cmd, pipeline::kScorer, args->flags);
  cmd->footer("marian-scorer's other options are accepted, or refused saying why, as\n"
              "docs/marian-options.md lists.");
  cmd->callback([args, &context]() { run_score(*args, context); });
}

}  // namespace s2s::app
