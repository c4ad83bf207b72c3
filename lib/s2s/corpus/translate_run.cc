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
#include "s2s/pipeline/shortlist_setting.h"
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
  if (!settings.shortlist.empty() && settings.shortlist.front() != "off")
    journal.options["shortlist file"] = pipeline::path_fingerprint(settings.shortlist.front());
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

// The first phase of a run: the settings without the model's (usage errors are then reported
// before the model loads, and the options that shape loading apply to it), and the checks that
// open no file.
struct RunPlan {
  std::string config;  // the --config file ("" none)
  pipeline::TranslateSettings early;
  pipeline::ConfigFileNotes config_notes;
  std::optional<pipeline::Shard> shard;
  std::string output_path;
};

RunPlan plan_run(const TranslateJob& job) {
  RunPlan plan;
  plan.config = config_file(job.settings.config);
  plan.config_notes = early_settings(job.settings, plan.config, plan.early);
  if (plan.early.quiet) log::set_level(log::Level::quiet);
  if (!job.settings.model.empty() && !plan.config_notes.model.empty())
    plan.config_notes.ignored.push_back("models (-m given)");
  note_ignored(job.settings, plan.config_notes, plan.config);
  if (!job.prefix_file.empty() && plan.early.translate.target_prefix)
    throw UsageError("--prefix reads prefixes from the input (source<TAB>prefix) and "
                     "--prefix-file from a file of their own: give one of them");
  plan.shard = given_shard(job.shard, job.input, "-i FILE");
  plan.output_path = plan.shard ? shard_output(job.output, job.input, *plan.shard) : job.output;
  refuse_output_over_input(plan.output_path,
                           {{job.input, "-i"},
                            {job.prefix_file, "--prefix-file"},
                            {plan.early.translate.glossary_file, "--glossary"}});
  if (job.resume) check_resumable(job.input, "-i FILE", plan.output_path);
  return plan;
}

// The windows (the batches' lines) start at the same lines in every run of a file. The first
// holds one batch per worker: split in two, a first window of one batch gave each worker half a
// batch, which costs nearly what a whole one does (each step streams every weight). A file of at
// most --maxi-batch lines is one window.
pipeline::WindowSchedule window_schedule(const File& input, const std::string& name,
                                         const pipeline::TranslateSettings& early,
                                         std::size_t workers) {
  const std::size_t first_window = static_cast<std::size_t>(early.translate.batch_size) * workers;
  return pipeline::WindowSchedule::for_input(input.fd(), name, first_window,
                                             static_cast<std::size_t>(early.maxi_batch));
}

// The part of the input this run reads.
struct InputSpan {
  pipeline::ShardRange range;  // a shard's lines from range.first_line up to range.end
  std::uint64_t bytes = pipeline::LineReader::kNoLimit;  // to read from the start
  std::size_t lines_before = 0;  // input lines before the first one read
  std::uint64_t start = 0;       // the input offset where reading starts, for the journal
};

// A shard (or, to resume, the whole file as one) seeks to its byte range; else the input is
// read from where it stands to its end.
InputSpan input_span(const TranslateJob& job, const RunPlan& plan, const File& input,
                     const pipeline::WindowSchedule& windows) {
  InputSpan span;
  if (plan.shard || job.resume) {
    span.range = pipeline::seek_to_shard(input.fd(), plan.shard.value_or(pipeline::Shard{}),
                                         job.input, &windows);
    span.bytes = span.range.end - span.range.begin;
  }
  span.lines_before = span.range.lines_before();
  span.start = span.range.begin;
  return span;
}

// A resumed run continues after the lines its journal says were written.
void continue_after(const RunOutput& output, const File& input, const std::string& name,
                    InputSpan& span) {
  span.lines_before += output.lines_start();
  if (::lseek(input.fd(), static_cast<off_t>(output.input_start()), SEEK_SET) < 0)
    throw InputError(name + ": cannot seek to the resume point: " + std::strerror(errno));
  span.bytes = span.range.end - output.input_start();
  span.start = output.input_start();
}

// The input's lines window by window, as the Translator takes them: a byte order mark dropped,
// --tsv fields kept, --prefix-file prefixes attached.
class WindowSource {
 public:
  WindowSource(const TranslateJob& job, const pipeline::TranslateSettings& settings,
               const File& input, const InputSpan& span, const pipeline::WindowSchedule& windows,
               const std::atomic<bool>* stop)
      : settings_(settings),
        windows_(windows),
        lines_before_(span.lines_before),
        reader_(input.fd(), stop, span.bytes) {
    if (!job.prefix_file.empty())
      prefixes_ = std::make_unique<PrefixFile>(job.prefix_file, stop, span.lines_before);
  }

  // The next window into `lines`; false at the end of the input.
  bool next(std::vector<std::string>& lines) {
    read_ += window_lines_;
    window_lines_ = 0;
    const std::size_t first = lines_before_ + read_;
    if (!reader_.next_window(lines, windows_.end_after(first) - first)) return false;
    window_lines_ = lines.size();
    // A byte order mark starts the input, not a line (nor a shard).
    if (first == 0) text::strip_bom(lines.front());
    if (settings_.tsv)
      keep_tsv_fields(lines, first + 1, settings_.tsv_fields,
                      settings_.translate.target_prefix ? 2 : 1);
    if (prefixes_) prefixes_->attach(lines, first + 1);
    return true;
  }
  // The 0-based number, in the whole input, of the last window's first line.
  std::size_t first_line() const { return lines_before_ + read_; }
  const std::vector<std::uint64_t>& line_ends() const { return reader_.line_ends(); }
  // After next() returned false, for a run that reads to the input's end: the prefix file must
  // end too.
  void check_end() {
    if (prefixes_) prefixes_->check_end(lines_before_ + read_);
  }

 private:
  const pipeline::TranslateSettings& settings_;
  const pipeline::WindowSchedule& windows_;
  std::size_t lines_before_;
  std::size_t read_ = 0;          // lines of the windows before the last one (in this run)
  std::size_t window_lines_ = 0;  // lines of the last window
  pipeline::LineReader reader_;
  std::unique_ptr<PrefixFile> prefixes_;
};

}  // namespace

RunResult translate(const TranslateJob& job, const RunControl& control) {
  const RunPlan plan = plan_run(job);
  // The model loads on this thread's OpenMP threads; with --workers N --threads T on N x T of
  // them: the workers' cores would be idle until it ends. Only the workers translate, each on
  // T threads of its own.
  set_num_threads(static_cast<int>(plan.early.threads * plan.early.workers));
  pipeline::ParallelOptions parallel = pipeline::parallel_options(plan.early);
  const File input(job.input, false);
  const pipeline::WindowSchedule windows =
      window_schedule(input, job.input, plan.early, static_cast<std::size_t>(parallel.workers));
  InputSpan span = input_span(job, plan, input, windows);
  // The model --config's `models` names when -m is not given, as marian-decoder -c decoder.yml.
  const std::string model_dir = model_folder(job.settings, plan.config_notes);
  const std::shared_ptr<const model::Model> model = formats::load_model(
      model_dir, formats::SpmPaths{plan.early.source_spm, plan.early.target_spm},
      pipeline::model_packing(plan.early, model_dir));
  pipeline::TranslateSettings settings = full_settings(job, plan.config, *model);
  pipeline::attach_shortlist(*model, model_dir, settings);

  const pipeline::Translator translator(model, pipeline::translator_options(settings));
  std::optional<pipeline::WorkerTeam> team;  // --workers: their threads, kept for the whole input
  if (parallel.workers > 1)
    parallel.team = &team.emplace(parallel.workers, parallel.threads_per_worker);
  const pipeline::OutputFormatter formatter(model->codec(), settings.format,
                                            settings.translate.search.n_best,
                                            pipeline::target_text(settings),
                                            settings.translate.alignment, settings.word_scores);
  RunOutput output(plan.output_path, job.resume, [&] {
    return journal_of_run(job, plan.output_path, input.fd(), span.range, model_dir, settings);
  });
  if (output.complete()) return {output.lines_start(), false};
  if (output.resumes()) continue_after(output, input, job.input, span);
  // Progress only where it cannot mix with what the user types or reads.
  Progress progress(control.progress_line && !settings.quiet && log::stderr_is_terminal() &&
                        !::isatty(input.fd()) && !::isatty(output.fd()),
                    control.progress);

  LabelWarnings labels(*model);
  std::atomic<bool> no_stop{false};
  std::atomic<bool>& stop = control.stop_flag ? *control.stop_flag() : no_stop;
  WindowSource source(job, settings, input, span, windows, &stop);
  InOrderWriter writer(
      output.fd(), progress,
      [&](std::size_t line, const pipeline::InputNotes& notes) {
        return input_warnings(line, notes, translator.limit(), labels);
      },
      span.lines_before,
      [&](std::size_t records, std::uint64_t input_end, std::uint64_t bytes, bool window_done) {
        output.written(records, bytes,
                       window_done && windows.is_boundary(span.lines_before + records),
                       span.start + input_end);
      });
  const std::unique_ptr<pipeline::DedupCache> dedup = dedup_cache(settings);
  std::vector<std::string> lines;
  while (source.next(lines)) {
    writer.start_window(lines.size(), source.line_ends());
    const std::size_t first_line = source.first_line();  // of the whole input
    translate_window(
        translator, lines, parallel, dedup.get(),
        [&](std::size_t i, pipeline::Translation translation, const pipeline::InputNotes& notes) {
          std::string record;
          formatter.append(translation, first_line + i, record, &notes);
          if (!writer.put(i, std::move(record), notes))
            stop.store(true);  // the reader is gone: stop quietly
        },
        first_line + 1, &stop);
    if (stop.load()) break;
  }
  progress.update(writer.written(), true);
  const RunResult result{output.lines_start() + writer.written(), stop.load()};
  if (result.stopped)
    output.stopped();  // resumable from its last window boundary
  else
    output.completed(writer.written(), writer.bytes(), span.range.end);
  // Only the last shard reaches the end of the input (and of the prefix file).
  const bool to_the_end = !plan.shard || plan.shard->index + 1 == plan.shard->count;
  if (!result.stopped && to_the_end) source.check_end();
  return result;
}

}  // namespace s2s::corpus
