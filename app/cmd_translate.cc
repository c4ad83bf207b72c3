// s2s translate: text in (stdin or -i), one record per input line out (stdout or -o), in order.
// Input is read in windows (LineReader): large ones from a file or fast pipe, a line at a time
// from an interactive writer; each window is translated with one Translator call and flushed.
// What the Translator did to a line (invalid UTF-8 replaced, a long line split or truncated) is
// a warning naming the line; the output is always valid UTF-8. Ctrl-C stops after the batch in
// progress, with every line before the first unfinished one written (interrupt.h).
#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <algorithm>
#include <memory>

#include "commands.h"
#include "interrupt.h"
#include "io.h"
#include "options.h"
#include "s2s/core/log.h"
#include "s2s/core/threads.h"
#include "s2s/formats/detect.h"
#include "s2s/pipeline/input_text.h"
#include "s2s/pipeline/line_reader.h"
#include "s2s/pipeline/parallel_translate.h"
#include "s2s/pipeline/output.h"

namespace s2s::app {
namespace {

struct TranslateArgs {
  std::string model;
  std::string input = "-";
  std::string output = "-";
  std::string config;
  OptionFlags flags;
};

// ">>deu<<" for "deu" (or ">>deu<<"); a UsageError listing the model's labels when it has none
// by that name.
std::string language_label(const Model& model, const std::string& lang) {
  const std::string label = lang.rfind(">>", 0) == 0 ? lang : ">>" + lang + "<<";
  const text::Vocabulary& vocab = model.codec().source_vocab();
  if (vocab.contains(label)) return label;
  std::string known;
  for (const std::string& l : vocab.language_tokens()) known += (known.empty() ? "" : " ") + l;
  throw UsageError("--target-lang " + lang + ": the model has no " + label + " token (" +
                   (known.empty() ? "it is not multilingual" : "it knows " + known) + ")");
}

// The warnings about what was done to one input line (1-based number over the whole input).
void warn_about_input(std::size_t line_number, const InputNotes& notes, const TokenLimit& limit) {
  if (notes.invalid_utf8 > 0) log::warning(invalid_utf8_message(line_number, notes.invalid_utf8));
  if (notes.long_line != InputNotes::LongLine::no)
    log::warning(long_line_message(line_number, notes, limit));
}

// The text or n-best record of a split line (OutputFormatter's, output.h): each piece's
// translation decoded on its own and joined with one space, which is what decoding the joined
// hypothesis gives, without the few hundred bytes per token SentencePiece needs to decode a
// megabyte line's translation at once.
void append_split(const text::TextCodec& codec, OutputFormat format,
                  const Translation& translation, const InputNotes& notes, std::size_t line_id,
                  std::string& out) {
  const Hypothesis& best = translation.hypotheses.front();
  if (format == OutputFormat::nbest) out += std::to_string(line_id) + " ||| ";
  std::size_t begin = 0;
  bool first = true;
  for (std::size_t end : notes.piece_ends) {
    const std::string text = codec.decode_target(
        std::vector<std::int32_t>(best.ids.begin() + static_cast<std::ptrdiff_t>(begin),
                                  best.ids.begin() + static_cast<std::ptrdiff_t>(end)));
    begin = end;
    if (text.empty()) continue;
    if (!first) out += ' ';
    out += text;
    first = false;
  }
  if (format == OutputFormat::nbest)
    out += " ||| F0= " + marian_float(best.score) + " ||| " + marian_float(best.normalized_score);
  out += '\n';
}

// --workers N translators, each with --threads compute threads; --threads 0 shares the cores
// (OMP_NUM_THREADS when set) among the workers.
ParallelOptions parallel_options(const TranslateSettings& settings) {
  ParallelOptions p;
  p.workers = static_cast<int>(settings.workers);
  p.threads_per_worker = settings.threads > 0 ? static_cast<int>(settings.threads)
                                              : std::max(1, num_threads() / p.workers);
  return p;
}

void run_translate(const TranslateArgs& args, const Context& context) {
  // A closed pipe must show up as EPIPE from write(), not kill the process.
  std::signal(SIGPIPE, SIG_IGN);
  // --config and the flags first, without the model's settings: usage errors are then reported
  // before the model loads, and the options that shape loading apply to it.
  TranslateSettings early;
  if (!args.config.empty()) read_yaml_options(args.config, YamlSource::config, early);
  apply_flags(args.flags, early);
  if (early.quiet) log::set_level(log::Level::quiet);
  set_num_threads(static_cast<int>(early.threads));
  const ParallelOptions parallel = parallel_options(early);
  const File input(args.input, false);
  const std::shared_ptr<const Model> model =
      formats::load_model(model_path(args.model, context),
                          formats::SpmPaths{early.source_spm, early.target_spm}, early.precision);

  TranslateSettings settings;  // defaults < the model's settings < --config < flags
  apply_model_defaults(model->info(), settings);
  if (!args.config.empty()) read_yaml_options(args.config, YamlSource::config, settings);
  apply_flags(args.flags, settings);
  if (!settings.target_lang.empty())
    settings.translate.target_label = language_label(*model, settings.target_lang);

  const Translator translator(model, settings.translate);
  const OutputFormatter formatter(model->codec(), settings.format,
                                  settings.translate.search.n_best);
  const File output(args.output, true);
  // Progress only where it cannot mix with what the user types or reads.
  Progress progress(!settings.quiet && log::stderr_is_terminal() && !::isatty(input.fd()) &&
                    !::isatty(output.fd()));

  const std::atomic<bool>& stop = install_interrupt_handler();
  LineReader reader(input.fd(), &stop);
  std::vector<std::string> lines;
  std::string records;
  std::vector<InputNotes> notes;
  std::size_t line_id = 0;  // lines done before this window
  while (reader.next_window(lines, static_cast<std::size_t>(settings.maxi_batch))) {
    if (line_id == 0) strip_bom(lines.front());  // a byte order mark starts the input, not a line
    const std::vector<Translation> translations =
        translate_in_parallel(translator, lines, parallel, line_id + 1, &notes, &stop);
    records.clear();
    for (std::size_t i = 0; i < translations.size(); ++i) {
      warn_about_input(line_id + 1, notes[i], translator.limit());
      if (settings.format != OutputFormat::jsonl && !notes[i].piece_ends.empty())
        append_split(model->codec(), settings.format, translations[i], notes[i], line_id, records);
      else
        formatter.append(translations[i], line_id, records);
      ++line_id;
    }
    repair_utf8(records);  // whatever the model and SentencePiece produce, stdout is UTF-8
    if (!write_all(output.fd(), records)) return;  // the reader is gone: stop quietly
    progress.update(line_id, false);
    if (translations.size() < lines.size()) break;
  }
  progress.update(line_id, true);
  if (stop.load()) throw Interrupted(line_id);
}

}  // namespace

void set_translate_command(CLI::App& app, const Context& context) {
  auto args = std::make_shared<TranslateArgs>();
  CLI::App* cmd = app.add_subcommand("translate", "Translate text, one sentence per line");
  cmd->add_option("-m,--model", args->model, "Model folder (default: the shipped model)");
  cmd->add_option("-i,--input", args->input, "Input file ('-' = stdin)");
  cmd->add_option("-o,--output", args->output, "Output file ('-' = stdout)");
  cmd->add_option("--config", args->config,
                  "YAML file of options, keys as the long flags (flags given here win)");
  add_translate_flags(*cmd, args->flags);
  cmd->footer(
      "Where options come from, lowest first: the defaults shown; the model's decoder.yml\n"
      "(beam-size, normalize, word-penalty, max-length-factor, allow-unk, n-best);\n"
      "--config FILE; the flags given here.");
  cmd->callback([args, &context]() { run_translate(*args, context); });
}

}  // namespace s2s::app
