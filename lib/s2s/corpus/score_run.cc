// corpus::score: log-probabilities of (source, target) pairs, like marian-scorer. Pairs come
// from source/target files (same line counts), from tab-separated lines, or from a source file
// plus a Marian/Moses n-best list, which is written back with one more feature
// (pipeline/pair_reader.h, pipeline/score_output.h). Output keeps input order and one record per
// pair.
//
// A side longer than --max-length tokens is truncated to fit, with a warning (a pair cannot be
// split: its two sides must stay aligned), or is an error with --long-lines fail.
//
// Pairs are read in windows that grow from one batch to --maxi-batch pairs, counted from the
// input's first line (pipeline/windows.h; a file of at most --maxi-batch pairs is one window),
// so that a resumed run forms the same batches and writes the same bytes as one whole run.
#include <atomic>
#include <memory>
#include <optional>

#include "s2s/core/error.h"
#include "s2s/core/log.h"
#include "s2s/core/threads.h"
#include "s2s/corpus/given.h"
#include "s2s/corpus/run.h"
#include "s2s/corpus/run_output.h"
#include "s2s/corpus/shards.h"
#include "s2s/corpus/writer.h"
#include "s2s/formats/detect.h"
#include "s2s/pipeline/journal.h"
#include "s2s/pipeline/languages.h"
#include "s2s/pipeline/long_lines.h"
#include "s2s/pipeline/pair_reader.h"
#include "s2s/pipeline/score_output.h"
#include "s2s/pipeline/settings.h"
#include "s2s/pipeline/windows.h"

namespace s2s::corpus {
namespace {

// Every combination works or is refused here, before the model loads; never silently ignored.
void check_combinations(const ScoreJob& job, const pipeline::ScoreSettings& s) {
  if (!s.summary.empty() && !pipeline::is_summary_kind(s.summary))
    throw UsageError("--summary " + s.summary +
                     ": not a corpus figure (cross-entropy, ce-mean, ce-mean-words, ce-sum, "
                     "perplexity)");
  if (s.format == pipeline::OutputFormat::nbest)
    throw UsageError("--format nbest: score prints text or jsonl (an n-best list is rescored "
                     "with --n-best FILE)");
  if (!s.summary.empty() && s.score.normalize != 0.0f)
    throw UsageError("--summary cannot be combined with --normalize (as in marian-scorer)");
  if (!s.summary.empty() && (s.word_scores || !job.nbest.empty()))
    throw UsageError(std::string("--summary prints one corpus figure; it cannot be combined with ") +
                     (s.word_scores ? "--word-scores" : "--n-best"));
  if (!job.nbest.empty() && s.format == pipeline::OutputFormat::jsonl)
    throw UsageError("--n-best writes the list back with one more feature (Marian's n-best "
                     "format); --format jsonl does not apply to it");
  if (s.score.alignment.on() && (!s.summary.empty() || !job.nbest.empty()))
    throw UsageError(std::string("--alignment cannot be combined with ") +
                     (s.summary.empty() ? "--n-best (an n-best line has no place for it)"
                                        : "--summary (it prints one corpus figure)"));
  if (!job.nbest.empty() && s.word_scores)
    throw UsageError("--word-scores cannot be combined with --n-best (an n-best line has no "
                     "place for them)");
  if (!job.nbest.empty() && job.source.empty())
    throw UsageError("--n-best needs --source FILE (the sources of the list)");
  if (job.nbest.empty() && job.source.empty() != job.target.empty())
    throw UsageError("--source and --target go together (or give tab-separated pairs)");
  if (!job.shard.empty() && !s.summary.empty())
    throw UsageError("--summary prints one corpus figure: the shards' figures would not add up "
                     "to it (score the shards without --summary)");
  if (job.resume && !s.summary.empty())
    throw UsageError("--summary prints one corpus figure at the end: a resumed run cannot "
                     "continue it (score with --resume without --summary)");
}

// The file a shard and a resumed run cut: the n-best list, the source file, or the input.
const std::string& sharded_file(const ScoreJob& job) {
  return !job.nbest.empty() ? job.nbest : !job.source.empty() ? job.source : job.input;
}

// How that file is given, for messages.
const char* sharded_flag(const ScoreJob& job) {
  return !job.nbest.empty() ? "--n-best FILE" : !job.source.empty() ? "--source FILE" : "-i FILE";
}

// What a fresh journal of this run says: resume.h's fields for the first file's range, plus
// the options that change scores and the fingerprint of the other input file.
pipeline::Journal journal_of_run(const ScoreJob& job, const std::string& output_path,
                                 const pipeline::ShardRange& range,
                                 const std::string& model_folder,
                                 const pipeline::ScoreSettings& settings) {
  const File input(sharded_file(job), false);
  pipeline::Journal journal =
      fresh_journal("score", sharded_file(job), input.fd(), output_path, range, model_folder);
  journal.options = pipeline::result_options(settings);
  if (!job.nbest.empty())  // the list's sentence numbers point into the source file
    journal.options["n-best sources file"] = pipeline::path_fingerprint(job.source);
  else if (!job.source.empty())
    journal.options["target file"] = pipeline::path_fingerprint(job.target);
  return journal;
}

pipeline::PairReader open_pairs(const ScoreJob& job, const pipeline::ScoreSettings& s,
                                const File& input, const std::atomic<bool>* stop,
                                const pipeline::Shard* shard,
                                const pipeline::WindowSchedule& windows) {
  const std::string name = job.input == "-" ? "standard input" : job.input;
  if (!job.nbest.empty())
    return pipeline::PairReader::nbest(input.fd(), job.nbest, job.source, s.skip_bad, stop,
                                       shard, &windows);
  if (!job.source.empty())
    return pipeline::PairReader::parallel(job.source, job.target, stop, shard, &windows);
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

// The per-window worker: scores one window's pairs (each side fitted to the limit first) and
// appends their records to `out`; false when stopped (the window is then not written).
class WindowScorer {
 public:
  WindowScorer(std::shared_ptr<const model::Model> model, const pipeline::ScoreSettings& s,
               pipeline::ScoreFormatter& formatter)
      : model_(model),
        settings_(s),
        scorer_(model, s.score),
        formatter_(formatter),
        limit_(pipeline::TokenLimit::of(static_cast<std::size_t>(s.max_length), 0)) {}

  bool score(std::vector<pipeline::PairEntry>& entries, const std::atomic<bool>* stop,
             std::string& out) {
    const text::TextCodec& codec = model_->codec();
    const pipeline::TokenCounter source_count = [&](const std::string& t) {
      return codec.encode_source(t).size();
    };
    const pipeline::TokenCounter target_count = [&](const std::string& t) {
      return codec.encode_target(t).size();
    };
    std::vector<std::pair<std::string, std::string>> pairs;
    for (pipeline::PairEntry& e : entries) {
      if (e.skipped) continue;
      fit_to_limit(e.source, e.line, "source ", limit_, settings_.long_lines, source_count);
      fit_to_limit(e.target, e.line, "target ", limit_, settings_.long_lines, target_count);
      pairs.emplace_back(std::move(e.source), std::move(e.target));
    }
    const std::vector<pipeline::PairScore> scores = scorer_.score(pairs, stop);
    if (scores.size() != pairs.size()) return false;
    for (std::size_t i = 0, k = 0; i < entries.size(); ++i) {
      if (entries[i].skipped) continue;
      if (scores[k++].beyond_positions)
        log::warning("pair " + std::to_string(entries[i].line) + " is longer than the model's " +
                     std::to_string(model_->config().max_positions) +
                     " positions; scored with the last position repeated, as Marian does");
    }
    formatter_.append(entries, scores, out);
    return true;
  }

 private:
  std::shared_ptr<const model::Model> model_;
  const pipeline::ScoreSettings& settings_;
  const pipeline::Scorer scorer_;
  pipeline::ScoreFormatter& formatter_;
  pipeline::TokenLimit limit_;
};

// The first phase of a run: settings without the model's (defaults < --config < given) and the
// checks that open no file, so that usage errors come before the model loads.
struct ScorePlan {
  std::string config;  // the --config file ("" none)
  pipeline::ConfigFileNotes config_notes;
  std::optional<pipeline::Shard> shard;
  std::string output_path;
};

ScorePlan plan_score(const ScoreJob& job, pipeline::ScoreSettings& s) {
  ScorePlan plan;
  plan.config = config_file(job.settings.config);
  plan.config_notes = early_settings(job.settings, plan.config, s);
  if (!job.settings.model.empty() && !plan.config_notes.model.empty())
    plan.config_notes.ignored.push_back("model (-m given)");
  check_combinations(job, s);
  plan.shard = given_shard(job.shard, sharded_file(job), sharded_flag(job));
  plan.output_path = plan.shard ? shard_output(job.output, sharded_file(job), *plan.shard)
                                : job.output;
  const bool reads_input = job.nbest.empty() && job.source.empty();
  refuse_output_over_input(plan.output_path, {{reads_input ? job.input : "", "-i"},
                                              {job.source, "--source"},
                                              {job.target, "--target"},
                                              {job.nbest, "--n-best"}});
  if (job.resume) check_resumable(sharded_file(job), sharded_flag(job), plan.output_path);
  if (s.quiet) log::set_level(log::Level::quiet);
  note_ignored(job.settings, plan.config_notes, plan.config);
  return plan;
}

// What the window loop has written.
struct Written {
  std::size_t pairs = 0;    // by this run
  std::uint64_t bytes = 0;  // by this run
  bool reader_gone = false;  // the output's reader went away (a normal end: `| head`)
};

// Scores window after window until the input ends or `stop` is set; a resume point only where
// the same windows follow.
Written score_windows(pipeline::PairReader& reader, const pipeline::WindowSchedule& windows,
                      WindowScorer& scorer, RunOutput& output, Progress& progress,
                      std::atomic<bool>& stop) {
  Written w;
  std::vector<pipeline::PairEntry> entries;
  std::size_t line = reader.range().lines_before() + output.lines_start();  // of the input, read
  while (reader.next(entries, windows.end_after(line) - line)) {
    line += entries.size();
    std::string out;
    if (!scorer.score(entries, &stop, out)) break;  // stopped: this window is not written
    if (!write_all(output.fd(), out)) {
      w.reader_gone = true;
      break;
    }
    w.pairs += entries.size();
    w.bytes += out.size();
    output.written(w.pairs, w.bytes, windows.is_boundary(line), reader.offset());
    progress.update(w.pairs, false);
    if (stop.load()) break;
  }
  return w;
}

}  // namespace

RunResult score(const ScoreJob& job, const RunControl& control) {
  pipeline::ScoreSettings s;
  const ScorePlan plan = plan_score(job, s);
  set_num_threads(static_cast<int>(s.threads));
  std::atomic<bool> no_stop{false};
  std::atomic<bool>& stop = control.stop_flag ? *control.stop_flag() : no_stop;  // between batches
  const File input(job.nbest.empty() ? job.input : job.nbest, false);
  // Windows grow from one batch to --maxi-batch pairs, counted from the input's first line: the
  // first scores come out after one batch, a stop loses at most the window in progress, and
  // shards and resumed runs batch as one whole run. A file of at most --maxi-batch pairs is one
  // window (pipeline/windows.h), as in translate: its batches are sorted all together.
  const bool parallel_files = job.nbest.empty() && !job.source.empty();
  const std::optional<File> source_file =
      parallel_files ? std::optional<File>(std::in_place, job.source, false) : std::nullopt;
  const pipeline::WindowSchedule windows = pipeline::WindowSchedule::for_input(
      parallel_files ? source_file->fd() : input.fd(), sharded_file(job),
      static_cast<std::size_t>(s.score.batch_size), static_cast<std::size_t>(s.maxi_batch));
  // A resumed run reads a byte range of the input: the shard's, or the whole file's.
  const pipeline::Shard whole;
  const pipeline::Shard* cut = plan.shard ? &*plan.shard : job.resume ? &whole : nullptr;
  pipeline::PairReader reader = open_pairs(job, s, input, &stop, cut, windows);
  const std::string model_dir = model_folder(job.settings, plan.config_notes);
  const auto model = formats::load_model(
      model_dir, formats::SpmPaths{s.source_spm, s.target_spm}, s.precision);
  pipeline::apply_languages(*model, s);  // NLLB-200 / M2M-100 language tokens (docs/models.md)
  pipeline::ScoreFormatter formatter(
      model->codec(), {s.format, s.word_scores, !job.nbest.empty(), s.n_best_feature, s.summary,
                       s.score.alignment});
  WindowScorer scorer(model, s, formatter);
  RunOutput output(plan.output_path, job.resume, [&] {
    return journal_of_run(job, plan.output_path, reader.range(), model_dir, s);
  });
  if (output.complete()) return {output.lines_start(), false};
  if (output.resumes()) reader.skip_done(output.lines_start(), output.input_start());
  Progress progress(control.progress_line && !s.quiet && log::stderr_is_terminal() &&
                        job.output != "-",
                    control.progress);
  const Written w = score_windows(reader, windows, scorer, output, progress, stop);
  const std::size_t records = output.lines_start() + w.pairs;
  if (w.reader_gone) return {records, false};
  progress.update(w.pairs, true);
  if (stop.load()) {
    output.stopped();  // resumable from its last window boundary
    return {records, true};
  }
  const std::string last = formatter.finish();  // the --summary record, if any
  if (!write_all(output.fd(), last)) return {records, false};
  output.completed(w.pairs, w.bytes + last.size(), reader.range().end);
  return {records, false};
}

}  // namespace s2s::corpus
