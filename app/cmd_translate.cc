// s2s translate: text in (stdin or -i), translations out (stdout or -o), one line per line.
#include <fstream>
#include <iostream>
#include <memory>

#include "commands.h"
#include "s2s/core/threads.h"
#include "s2s/formats/detect.h"
#include "s2s/pipeline/translator.h"

namespace s2s::app {
namespace {

struct TranslateArgs {
  std::string model;
  std::string input = "-";
  std::string output = "-";
  int threads = 0;
  TranslateOptions options;
};

void run_translate(const TranslateArgs& args, const Context& context) {
  set_num_threads(args.threads);
  Translator translator(formats::load_model(model_path(args.model, context)), args.options);

  std::ifstream in_file;
  if (args.input != "-") {
    in_file.open(args.input, std::ios::binary);
    if (!in_file) throw InputError(args.input + ": cannot open input file");
  }
  std::ofstream out_file;
  if (args.output != "-") {
    out_file.open(args.output, std::ios::binary);
    if (!out_file) throw InputError(args.output + ": cannot open output file");
  }
  std::istream& in = args.input == "-" ? std::cin : in_file;
  std::ostream& out = args.output == "-" ? std::cout : out_file;

  // Lines are translated a batch at a time and flushed, so output keeps pace with input.
  const std::size_t window = static_cast<std::size_t>(args.options.batch_size);
  std::vector<std::string> lines;
  std::string line;
  auto flush = [&]() {
    for (const Translation& t : translator.translate(lines))
      out << (t.hypotheses.empty() ? std::string()
                                   : translator.model().codec().decode_target(t.hypotheses[0].ids))
          << '\n';
    out.flush();
    lines.clear();
  };
  while (std::getline(in, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();  // CRLF input
    lines.push_back(line);
    if (lines.size() >= window) flush();
  }
  flush();
}

}  // namespace

void set_translate_command(CLI::App& app, const Context& context) {
  auto args = std::make_shared<TranslateArgs>();
  CLI::App* cmd = app.add_subcommand("translate", "Translate text, one sentence per line");
  cmd->add_option("-m,--model", args->model, "Model folder (default: the shipped model)");
  cmd->add_option("-i,--input", args->input, "Input file ('-' = stdin)");
  cmd->add_option("-o,--output", args->output, "Output file ('-' = stdout)");
  cmd->add_option("--threads", args->threads, "Compute threads (0 = all cores)")
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("--batch-size", args->options.batch_size, "Sentences per batch")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--max-length-factor", args->options.search.max_length_factor,
                  "Maximum target length as a multiple of the source length")
      ->check(CLI::PositiveNumber);
  cmd->add_option("-b,--beam-size", args->options.search.beam_size, "Beam size (1 = greedy)")
      ->check(CLI::PositiveNumber);
  cmd->add_flag("--allow-unk", args->options.search.allow_unk, "Allow <unk> in translations");
  cmd->callback([args, &context]() { run_translate(*args, context); });
}

}  // namespace s2s::app
