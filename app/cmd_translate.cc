// s2s translate: text in (stdin or -i), one record per input line out (stdout or -o), in order.
// Input is read in windows (LineReader): from a file or fast pipe, windows grow from one batch per
// worker to --maxi-batch lines (the first lines come out after one batch, not a whole window; a
// file of at most --maxi-batch lines is one window), cut
// at the same lines of the input in every run (pipeline/windows.h: shards and resumed runs); an
// interactive writer gets an answer per line. Each record is written as soon as it and every
// line before it are translated (InOrderWriter), so a stop or a crash loses only lines in
// flight. What the Translator did to a line (invalid UTF-8 replaced, a long line split or
// truncated) is a warning naming the line, printed as the line is written; the output is always
// valid UTF-8. Ctrl-C stops within a decoder step (interrupt.h).
#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <algorithm>
#include <functional>
#include <limits>
#include <memory>
#include <optional>

#include "commands.h"
#include "interrupt.h"
#include "io.h"
#include "options.h"
#include "prefix_file.h"
#include "resume.h"
#include "shard_output.h"
#include "s2s/core/log.h"
#include "s2s/core/strings.h"
#include "s2s/core/threads.h"
#include "s2s/formats/detect.h"
#include "s2s/pipeline/languages.h"
#include "s2s/pipeline/long_lines.h"
#include "s2s/text/clean.h"
#include "s2s/pipeline/dedup.h"
#include "s2s/pipeline/journal.h"
#include "s2s/pipeline/line_reader.h"
#include "s2s/pipeline/output.h"
#include "s2s/pipeline/protection.h"
#include "s2s/pipeline/windows.h"
#include "s2s/pipeline/worker_team.h"

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

// The model's >>xxx<< language labels, space-separated ("" when it is not multilingual).
std::string known_labels(const model::Model& model) {
  return join(model.codec().source_vocab().language_tokens(), " ");
}

// Warnings about language labels: each line whose label the model does not know, and the first
// line without one when the model is multilingual (once: every line would say the same).
class LabelWarnings {
 public:
  explicit LabelWarnings(const model::Model& model) : known_(known_labels(model)) {}

  void add(std::size_t line_number, const pipeline::InputNotes& notes,
           std::vector<std::string>& out) {
    const std::string line = "line " + std::to_string(line_number) + ": ";
    if (!notes.unknown_label.empty())
      out.push_back(line + notes.unknown_label + " is not a language label of this model (" +
                    (known_.empty() ? "it is not multilingual" : "it knows " + known_) +
                    "): translated as ordinary text");
    if (notes.no_label && !warned_no_label_) {
      warned_no_label_ = true;
      out.push_back(line + "no >>xxx<< language label, and this model is multilingual (it knows " +
                    known_ + "): give --target-lang or start each line with a label (said once)");
    }
  }

 private:
  std::string known_;
  bool warned_no_label_ = false;
};

// The warnings about what was done to one input line (1-based number over the whole input).
std::vector<std::string> input_warnings(std::size_t line_number, const pipeline::InputNotes& notes,
                                        const pipeline::TokenLimit& limit, LabelWarnings& labels) {
  std::vector<std::string> warnings;
  labels.add(line_number, notes, warnings);
  for (std::string& warning : pipeline::protection_messages(line_number, notes))
    warnings.push_back(std::move(warning));
  if (notes.invalid_utf8 > 0) warnings.push_back(text::invalid_utf8_message(line_number, notes.invalid_utf8));
  if (notes.long_line != pipeline::InputNotes::LongLine::no)
    warnings.push_back(pipeline::long_line_message(line_number, notes, limit));
  for (std::string& warning : pipeline::glossary_messages(line_number, notes))
    warnings.push_back(std::move(warning));
  for (std::string& warning : pipeline::short_messages(line_number, notes))
    warnings.push_back(std::move(warning));
  return warnings;
}

// Writes one window's records in input order: each as soon as it and all records before it are
// there. Records arrive in any order (batches are sorted by length).
// The warnings of a line are made as it is written, in input order (so that a warning given once
// names the first line it applies to).
class InOrderWriter {
 public:
  using Warnings =
      std::function<std::vector<std::string>(std::size_t line_number, const pipeline::InputNotes&)>;
  // Called after each write: records and output bytes written by this writer so far, whether
  // that ends the window, and the input offset (as LineReader::line_ends counts) past the last
  // record written.
  using Written = std::function<void(std::size_t records, std::uint64_t input_end,
                                     std::uint64_t bytes, bool window_done)>;
  // `lines_before`: input lines before the first one written here (a shard's, or those of an
  // earlier run that this one resumes), so that warnings name lines of the whole input.
  InOrderWriter(int fd, Progress& progress, Warnings warnings, std::size_t lines_before,
                Written written)
      : fd_(fd),
        progress_(progress),
        warnings_(std::move(warnings)),
        lines_before_(lines_before),
        written_hook_(std::move(written)) {}

  // `line_ends`: LineReader::line_ends of the window.
  void start_window(std::size_t lines, const std::vector<std::uint64_t>& line_ends) {
    slots_.assign(lines, Slot{});
    line_ends_ = line_ends;
    next_ = 0;
  }

  // Returns false once the output's reader has gone (nothing more can be written).
  bool put(std::size_t index, std::string record, pipeline::InputNotes notes) {
    slots_[index] = Slot{std::move(record), std::move(notes), true};
    std::string out;
    for (; next_ < slots_.size() && slots_[next_].ready; ++next_) {
      Slot& slot = slots_[next_];
      for (const std::string& warning : warnings_(lines_before_ + written_ + 1, slot.notes))
        log::warning(warning);
      out += slot.record;
      slot = Slot{};  // frees the written record
      ++written_;
    }
    if (out.empty() || closed_) return !closed_;
    text::repair_utf8(out);  // whatever the model and SentencePiece produce, the output is UTF-8
    closed_ = !write_all(fd_, out);
    bytes_ += out.size();
    if (!closed_ && written_hook_)
      written_hook_(written_, line_ends_[next_ - 1], bytes_, next_ == slots_.size());
    progress_.update(written_, false);
    return !closed_;
  }

  std::size_t written() const { return written_; }
  std::uint64_t bytes() const { return bytes_; }

 private:
  struct Slot {
    std::string record;
    pipeline::InputNotes notes;
    bool ready = false;
  };
  int fd_;
  Progress& progress_;
  Warnings warnings_;
  std::size_t lines_before_;
  Written written_hook_;
  std::vector<Slot> slots_;
  std::vector<std::uint64_t> line_ends_;
  std::size_t next_ = 0;     // first slot not yet written
  std::size_t written_ = 0;  // records written over the whole run
  std::uint64_t bytes_ = 0;  // output bytes written over the whole run
  bool closed_ = false;
};

// What a fresh journal of this run says: app/resume.h's fields for the input range, plus the
// options that change the output (with the files they name).
pipeline::Journal journal_of_run(const TranslateArgs& args, const std::string& output_path,
                                 int input_fd, const pipeline::ShardRange& range,
                                 const std::string& model_folder,
                                 const pipeline::TranslateSettings& settings) {
  pipeline::Journal journal =
      fresh_journal("translate", args.input, input_fd, output_path, range, model_folder);
  journal.options = pipeline::result_options(settings);
  if (!settings.translate.glossary_file.empty())
    journal.options["glossary file"] = pipeline::path_fingerprint(settings.translate.glossary_file);
  if (!args.prefix_file.empty()) {
    journal.options["prefix-file"] = args.prefix_file;
    journal.options["prefix-file file"] = pipeline::path_fingerprint(args.prefix_file);
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

// Translator::translate_each over one window, through the --dedup cache when there is one (`done`
// is then called for every line too, each with its own index).
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

void run_translate(const TranslateArgs& args, const Context& context) {
  // A closed pipe must show up as EPIPE from write(), not kill the process.
  std::signal(SIGPIPE, SIG_IGN);
  // --config and the flags first, without the model's settings: usage errors are then reported
  // before the model loads, and the options that shape loading apply to it.
  const std::string config = config_path(args.config, context);
  pipeline::TranslateSettings early;
  pipeline::ConfigFileNotes config_notes;
  if (!config.empty())
    config_notes = pipeline::read_yaml_options(config, pipeline::YamlSource::config, early);
  apply_flags(args.flags, early);
  if (args.max_length_crop) early.translate.long_lines = pipeline::LongLines::truncate;
  if (early.quiet) log::set_level(log::Level::quiet);
  if (!args.model.empty() && !config_notes.model.empty())
    config_notes.ignored.push_back("models (-m given)");
  note_ignored(args.flags, config_notes, config);
  if (!args.prefix_file.empty() && early.translate.target_prefix)
    throw UsageError("--prefix reads prefixes from the input (source<TAB>prefix) and "
                     "--prefix-file from a file of their own: give one of them");
  const std::optional<pipeline::Shard> shard = given_shard(args.shard, args.input, "-i FILE");
  // The model loads on this thread's OpenMP threads; with --workers N --threads T on N x T of
  // them: the workers' cores are idle until it ends (with one thread a base model's int8 load
  // took 0.36 s instead of 0.26 s). Only the workers translate, each on T threads of its own.
  set_num_threads(static_cast<int>(early.threads * early.workers));
  pipeline::ParallelOptions parallel = pipeline::parallel_options(early);
  const std::string output_path =
      shard ? shard_output(args.output, args.input, *shard) : args.output;
  refuse_output_over_input(output_path, {{args.input, "-i"},
                                         {args.prefix_file, "--prefix-file"},
                                         {early.translate.glossary_file, "--glossary"}});
  if (args.resume) check_resumable(args.input, "-i FILE", output_path);
  const File input(args.input, false);
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
      input.fd(), args.input, first_window, static_cast<std::size_t>(early.maxi_batch));
  if (shard || args.resume) {
    range = pipeline::seek_to_shard(input.fd(), shard.value_or(pipeline::Shard{}), args.input,
                                    &windows);
    input_bytes = range.end - range.begin;
  }
  std::size_t lines_before = range.lines_before();
  // The model --config's `models` names when -m is not given, as marian-decoder -c decoder.yml.
  const std::string model_folder =
      model_path(args.model.empty() ? config_notes.model : args.model, context);
  const std::shared_ptr<const model::Model> model =
      formats::load_model(model_folder,
                          formats::SpmPaths{early.source_spm, early.target_spm}, early.precision);

  pipeline::TranslateSettings settings;  // defaults < the model's settings < --config < flags
  pipeline::apply_model_defaults(model->info(), settings);
  if (!config.empty()) pipeline::read_yaml_options(config, pipeline::YamlSource::config, settings);
  apply_flags(args.flags, settings);
  if (args.max_length_crop) settings.translate.long_lines = pipeline::LongLines::truncate;
  if (!args.prefix_file.empty()) settings.translate.target_prefix = true;
  // marian-decoder prints its n-best lines for --n-best: one text line could only drop the beam.
  if (settings.translate.search.n_best && settings.format == pipeline::OutputFormat::text)
    settings.format = pipeline::OutputFormat::nbest;
  pipeline::apply_languages(*model, settings);

  const pipeline::Translator translator(model, pipeline::translator_options(settings));
  std::optional<pipeline::WorkerTeam> team;  // --workers: their threads, kept for the whole input
  if (parallel.workers > 1)
    parallel.team = &team.emplace(parallel.workers, parallel.threads_per_worker);
  const pipeline::OutputFormatter formatter(model->codec(), settings.format,
                                            settings.translate.search.n_best,
                                            pipeline::target_text(settings),
                                            settings.translate.alignment, settings.word_scores);
  std::unique_ptr<ResumableOutput> resumable;
  std::optional<File> output;
  if (args.resume) {
    resumable = std::make_unique<ResumableOutput>(
        output_path, journal_of_run(args, output_path, input.fd(), range, model_folder, settings));
    if (resumable->complete()) return;
    const pipeline::Journal& start = resumable->journal();
    lines_before += start.lines_done;
    if (::lseek(input.fd(), static_cast<off_t>(start.input_offset), SEEK_SET) < 0)
      throw InputError(args.input + ": cannot seek to the resume point: " + std::strerror(errno));
    input_bytes = range.end - start.input_offset;
  } else {
    output.emplace(output_path, true);
    // A journal left by an earlier --resume run no longer describes the output just truncated.
    if (output_path != "-") std::remove(pipeline::journal_path(output_path).c_str());
  }
  const int output_fd = resumable ? resumable->fd() : output->fd();
  // Progress only where it cannot mix with what the user types or reads.
  Progress progress(!settings.quiet && log::stderr_is_terminal() && !::isatty(input.fd()) &&
                    !::isatty(output_fd));

  LabelWarnings labels(*model);
  const std::atomic<bool>& stop = stop_gracefully();
  pipeline::LineReader reader(input.fd(), &stop, input_bytes);
  std::unique_ptr<PrefixFile> prefixes;
  if (!args.prefix_file.empty())
    prefixes = std::make_unique<PrefixFile>(args.prefix_file, &stop, lines_before);
  // The input offset and output size where this run started, for the journal.
  const std::uint64_t input_start = resumable ? resumable->journal().input_offset : range.begin;
  const std::size_t lines_start = resumable ? resumable->journal().lines_done : 0;
  const std::uint64_t bytes_start = resumable ? resumable->journal().output_bytes : 0;
  InOrderWriter writer(
      output_fd, progress,
      [&](std::size_t line, const pipeline::InputNotes& notes) {
        return input_warnings(line, notes, translator.limit(), labels);
      },
      lines_before,
      [&](std::size_t records, std::uint64_t input_end, std::uint64_t bytes, bool window_done) {
        if (!resumable) return;
        // Only a window boundary is a resume point: a resumed run then cuts the same windows.
        if (window_done && windows.is_boundary(lines_before + records))
          resumable->reached_boundary(lines_start + records, input_start + input_end,
                                      bytes_start + bytes);
        else
          resumable->written(lines_start + records);
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
            request_stop();  // the reader is gone: stop quietly
        },
        lines_before + window_start + 1, &stop);
    window_start += lines.size();
    if (stop.load()) break;
  }
  progress.update(writer.written(), true);
  if (resumable) {
    if (stop.load())
      resumable->finish();  // resumable from its last window boundary
    else
      resumable->finish_complete(lines_start + writer.written(), range.end,
                                 bytes_start + writer.bytes());
  }
  // The output holds the earlier runs' lines too: the message counts the file's lines.
  if (stopped_by_signal()) throw Interrupted(lines_start + writer.written());
  // Only the last shard reaches the end of the input (and of the prefix file).
  const bool to_the_end = !shard || shard->index + 1 == shard->count;
  if (prefixes && !stop.load() && to_the_end) prefixes->check_end(lines_before + window_start);
}

// The keys s2s applies from a model's decoder.yml, from the settings table: "beam-size, ...".
std::string model_keys() {
  std::vector<std::string> keys;
  for (std::size_t i = 0; i < pipeline::option_count(pipeline::Command::translate); ++i) {
    const pipeline::OptionRow row = pipeline::option_row(pipeline::Command::translate, i);
    if (pipeline::applies_from_model(row.key)) keys.push_back(row.key);
  }
  return join(keys, ", ");
}

}  // namespace

void set_translate_command(CLI::App& app, const Context& context) {
  auto args = std::make_shared<TranslateArgs>();
  CLI::App* cmd = app.add_subcommand("translate", "Translate text, one sentence per line");
  add_log_flag(*cmd);  // first: the errors of every other option reach the log too
  add_model_flags(*cmd, args->model);
  cmd->add_option("-i,--input", args->input, "Input file ('-' = stdin) [default: -]")
      ->type_name("FILE");
  cmd->add_option("-o,--output", args->output,
                  "Output file ('-' = stdout); with --shard also a folder or a name with {shard} "
                  "[default: -]")
      ->type_name("FILE");
  add_shard_flag(*cmd, args->shard);
  cmd->add_flag("--resume", args->resume,
                "Keep a journal next to the output (OUT.s2s-journal) and continue an interrupted "
                "run where it stopped: same command line plus --resume; refused when the input, "
                "model or options changed; a complete output is left as it is");
  cmd->add_option("-c,--config", args->config,
                  "YAML file of options, keys as the long flags (flags given here win), or the "
                  "name of a shipped one: fast, quality");
  add_option_flags(*cmd, pipeline::Command::translate, args->flags);
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
  add_marian_flags(*cmd, pipeline::kDecoder, args->flags);
  cmd->footer("Where options come from, lowest first: the defaults shown; the model's decoder.yml\n(" +
              model_keys() + ");\n--config FILE; the flags given here. marian-decoder's other options are\n"
              "accepted, or refused saying why, as docs/marian-options.md lists.");
  cmd->callback([args, &context]() { run_translate(*args, context); });
}

}  // namespace s2s::app
