// corpus::translate: text in, one record per input line out, in order. Input is read in windows
// (LineReader): from a file or fast pipe, windows grow from one batch per worker to --maxi-batch
// lines (the first lines come out after one batch, not a whole window; a file of at most
// --maxi-batch lines is one window), cut at the same lines of the input in every run
// (pipeline/windows.h: shards and resumed runs); an interactive writer gets an answer per line.
// What the Translator did to a line (invalid UTF-8 replaced, a long line split or truncated) is
// a warning naming the line, printed as the line is written; the output is always valid UTF-8.
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <limits>
#include <memory>
#include <optional>

#include "s2s/core/error.h"
#include "s2s/core/log.h"
#include "s2s/core/threads.h"
#include "s2s/corpus/given.h"
#include "s2s/corpus/prefix_file.h"
#include "s2s/corpus/run.h"
#include "s2s/corpus/run_output.h"
#include "s2s/corpus/shards.h"
#include "s2s/corpus/warnings.h"
#include "s2s/corpus/writer.h"
#include "s2s/formats/detect.h"
#include "s2s/pipeline/dedup.h"
#include "s2s/pipeline/journal.h"
#include "s2s/pipeline/languages.h"
#include "s2s/pipeline/line_reader.h"
#include "s2s/pipeline/long_lines.h"
#include "s2s/pipeline/output.h"
#include "s2s/pipeline/windows.h"
#include "s2s/pipeline/worker_team.h"
#include "s2s/text/clean.h"

namespace s2s::corpus {
namespace {

// What a fresh journal of this run says: resume.h's fields for the input range, plus the
// options that change the output (with the files they name).
pipeline::Journal journal_of_run(const TranslateJob& job, const std::string& output_path,
                                 int input_fd, const pipeline::ShardRange& range,
                                 const std::string& model_folder,
                                 const pipeline::TranslateSettings& settings) {
  pipeline::Journal journal =
      fresh_journal("translate", job.input, input_fd, output_path, range, model_folder);
  journal.options = pipeline::result_options(settings);
  if (!settings.translate.glossary_file.empty())
    journal.options["glossary file"] = pipeline::path_fingerprint(settings.translate.glossary_file);
  if (!job.prefix_file.empty()) {
    journal.options["prefix-file"] = job.prefix_file;
    journal.options["prefix-file file"] = pipeline::path_fingerprint(job.prefix_file);
  }
  return journal;
}

// --tsv (Marian's): each line becomes its first `kept` fields (the source, and with --prefix the
// prefix); a line of more than `most` fields is an InputError naming it (Marian: "Excessive
// field(s)"); missing fields are empty.
void keep_tsv_fields(std::vector<std::string>& lines, std::size_t first_line_number,
                     dim_t most, std::size_t kept) {
  for (std::size_t i = 0; i < lines.size(); ++i) {
    std::string& line = lines[i];
    const auto fields = static_cast<std::size_t>(std::count(line.begin(), line.end(), '\t')) + 1;
    if (fields > static_cast<std::size_t>(most))
      throw InputError("line " + std::to_string(first_line_number + i) + ": " +
                       std::to_string(fields) + " tab-separated fields, more than --tsv-fields " +
                       std::to_string(most));
    std::size_t end = 0;
    for (std::size_t k = 0; k < kept && end != std::string::npos; ++k)
      end = line.find('\t', k == 0 ? 0 : end + 1);
    if (end != std::string::npos) line.erase(end);
  }
}

// --dedup: the cache of finished lines (--dedup-memory MB), or none.
std::unique_ptr<pipeline::DedupCache> dedup_cache(const pipeline::TranslateSettings& settings) {
  if (!settings.dedup) return nullptr;
  const double bytes = static_cast<double>(settings.dedup_memory) * (1 << 20);
  constexpr double kMost = static_cast<double>(std::numeric_limits<std::size_t>::max() / 2);
  return std::make_unique<pipeline::DedupCache>(static_cast<std::size_t>(std::min(bytes, kMost)));
}

// The per-window worker: Translator::translate_each over one window, through the --dedup cache
// when there is one (`done` is then called for every line too, each with its own index).
void translate_window(const pipeline::Translator& translator, const std::vector<std::string>& lines,
                      const pipeline::ParallelOptions& parallel, pipeline::DedupCache* dedup,
                      const pipeline::Translator::LineDone& done, std::size_t first_line_number,
                      const std::atomic<bool>* stop) {
  const auto translate = [&](const std::vector<std::string>& work,
                             const pipeline::Translator::LineDone& work_done) {
    translator.translate_each(work, work_done, first_line_number, stop, parallel);
  };
  if (dedup)
    pipeline::translate_deduplicated(lines, *dedup, translate, done);
  else
    translate(lines, done);
}

// The second phase (run.h): defaults < the model's settings < --config < given settings, and
// what the job itself implies.
pipeline::TranslateSettings full_settings(const TranslateJob& job, const std::string& config,
                                          const model::Model& model) {
  pipeline::TranslateSettings settings;
  pipeline::apply_model_defaults(model.info(), settings);
  if (!config.empty()) pipeline::read_yaml_options(config, pipeline::YamlSource::config, settings);
  apply_given(job.settings.given, settings);
  if (!job.prefix_file.empty()) settings.translate.target_prefix = true;
  // marian-decoder prints its n-best lines for --n-best: one text line could only drop the beam.
  if (settings.translate.search.n_best && settings.format == pipeline::OutputFormat::text)
    settings.format = pipeline::OutputFormat::nbest;
  pipeline::apply_languages(model, settings);
  return settings;
}

}  // namespace

RunResult translate(const TranslateJob& job, const RunControl& control) {
  // The settings first without the model's: usage errors are then reported before the model
  // loads, and the options that shape loading apply to it.
  const std::string config = config_file(job.settings.config);
  pipeline::TranslateSettings early;
  pipeline::ConfigFileNotes config_notes = early_settings(job.settings, config, early);
  if (early.quiet) log::set_level(log::Level::quiet);
  if (!job.settings.model.empty() && !config_notes.model.empty())
    config_notes.ignored.push_back("models (-m given)");
  note_ignored(job.settings, config_notes, config);
  if (!job.prefix_file.empty() && early.translate.target_prefix)
    throw UsageError("--prefix reads prefixes from the input (source<TAB>prefix) and "
                     "--prefix-file from a file of their own: give one of them");
  const std::optional<pipeline::Shard> shard = given_shard(job.shard, job.input, "-i FILE");
  // The model loads on this thread's OpenMP threads; with --workers N --threads T on N x T of
  // them: the workers' cores are idle until it ends (with one thread a base model's int8 load
  // took 0.36 s instead of 0.26 s). Only the workers translate, each on T threads of its own.
  set_num_threads(static_cast<int>(early.threads * early.workers));
  pipeline::ParallelOptions parallel = pipeline::parallel_options(early);
  const std::string output_path = shard ? shard_output(job.output, job.input, *shard) : job.output;
  refuse_output_over_input(output_path, {{job.input, "-i"},
                                         {job.prefix_file, "--prefix-file"},
                                         {early.translate.glossary_file, "--glossary"}});
  if (job.resume) check_resumable(job.input, "-i FILE", output_path);
  const File input(job.input, false);
  // A shard: the input's lines from range.first_line, up to range.end (the whole input without).
  pipeline::ShardRange range;
  std::uint64_t input_bytes = pipeline::LineReader::kNoLimit;
  // The windows (the batches' lines) start at the same lines in every run of a file. The first
  // holds one batch per worker: split in two, a 32-line first window gave two workers 16-row
  // batches, which cost nearly what 32 rows do (each step streams every weight); measured in
  // bench/NOTES.md ("2026-11-27"). A file of at most --maxi-batch lines is one window.
  const std::size_t first_window = static_cast<std::size_t>(early.translate.batch_size) *
                                   static_cast<std::size_t>(parallel.workers);
  const pipeline::WindowSchedule windows = pipeline::WindowSchedule::for_input(
      input.fd(), job.input, first_window, static_cast<std::size_t>(early.maxi_batch));
  if (shard || job.resume) {
    range = pipeline::seek_to_shard(input.fd(), shard.value_or(pipeline::Shard{}), job.input,
                                    &windows);
    input_bytes = range.end - range.begin;
  }
  std::size_t lines_before = range.lines_before();
  // The model --config's `models` names when -m is not given, as marian-decoder -c decoder.yml.
  const std::string model_dir = model_folder(job.settings, config_notes);
  const std::shared_ptr<const model::Model> model = formats::load_model(
      model_dir, formats::SpmPaths{early.source_spm, early.target_spm}, early.precision);
  const pipeline::TranslateSettings settings = full_settings(job, config, *model);

  const pipeline::Translator translator(model, pipeline::translator_options(settings));
  std::optional<pipeline::WorkerTeam> team;  // --workers: their threads, kept for the whole input
  if (parallel.workers > 1)
    parallel.team = &team.emplace(parallel.workers, parallel.threads_per_worker);
  const pipeline::OutputFormatter formatter(model->codec(), settings.format,
                                            settings.translate.search.n_best,
                                            pipeline::target_text(settings),
                                            settings.translate.alignment, settings.word_scores);
  RunOutput output(output_path, job.resume, [&] {
    return journal_of_run(job, output_path, input.fd(), range, model_dir, settings);
  });
  if (output.complete()) return {output.lines_start(), false};
  if (output.resumes()) {
    lines_before += output.lines_start();
    if (::lseek(input.fd(), static_cast<off_t>(output.input_start()), SEEK_SET) < 0)
      throw InputError(job.input + ": cannot seek to the resume point: " + std::strerror(errno));
    input_bytes = range.end - output.input_start();
  }
  // Progress only where it cannot mix with what the user types or reads.
  Progress progress(control.progress_line && !settings.quiet && log::stderr_is_terminal() &&
                        !::isatty(input.fd()) && !::isatty(output.fd()),
                    control.progress);

  LabelWarnings labels(*model);
  std::atomic<bool> no_stop{false};
  std::atomic<bool>& stop = control.stop_flag ? *control.stop_flag() : no_stop;
  pipeline::LineReader reader(input.fd(), &stop, input_bytes);
  std::unique_ptr<PrefixFile> prefixes;
  if (!job.prefix_file.empty())
    prefixes = std::make_unique<PrefixFile>(job.prefix_file, &stop, lines_before);
  // The input offset where this run started, for the journal.
  const std::uint64_t input_start = output.resumes() ? output.input_start() : range.begin;
  InOrderWriter writer(
      output.fd(), progress,
      [&](std::size_t line, const pipeline::InputNotes& notes) {
        return input_warnings(line, notes, translator.limit(), labels);
      },
      lines_before,
      [&](std::size_t records, std::uint64_t input_end, std::uint64_t bytes, bool window_done) {
        output.written(records, bytes, window_done && windows.is_boundary(lines_before + records),
                       input_start + input_end);
      });
  const std::unique_ptr<pipeline::DedupCache> dedup = dedup_cache(settings);
  std::vector<std::string> lines;
  std::size_t window_start = 0;  // lines read before this window (in this run)
  while (reader.next_window(
      lines, windows.end_after(lines_before + window_start) - (lines_before + window_start))) {
    // A byte order mark starts the input, not a line (nor a shard).
    if (window_start == 0 && lines_before == 0) text::strip_bom(lines.front());
    if (settings.tsv)
      keep_tsv_fields(lines, lines_before + window_start + 1, settings.tsv_fields,
                      settings.translate.target_prefix ? 2 : 1);
    if (prefixes) prefixes->attach(lines, lines_before + window_start + 1);
    writer.start_window(lines.size(), reader.line_ends());
    translate_window(
        translator, lines, parallel, dedup.get(),
        [&](std::size_t i, pipeline::Translation translation, const pipeline::InputNotes& notes) {
          const std::size_t line_id = lines_before + window_start + i;  // of the whole input
          std::string record;
          formatter.append(translation, line_id, record, &notes);
          if (!writer.put(i, std::move(record), notes))
            stop.store(true);  // the reader is gone: stop quietly
        },
        lines_before + window_start + 1, &stop);
    window_start += lines.size();
    if (stop.load()) break;
  }
  progress.update(writer.written(), true);
  const RunResult result{output.lines_start() + writer.written(), stop.load()};
  if (result.stopped)
    output.stopped();  // resumable from its last window boundary
  else
    output.completed(writer.written(), writer.bytes(), range.end);
  // Only the last shard reaches the end of the input (and of the prefix file).
  const bool to_the_end = !shard || shard->index + 1 == shard->count;
  if (prefixes && !result.stopped && to_the_end) prefixes->check_end(lines_before + window_start);
  return result;
}

}  // namespace s2s::corpus
