#include "commands.h"
#include "s2s/core/error.h"
#include "s2s/core/log.h"

namespace s2s::app {

void add_model_flags(CLI::App& cmd, std::string& model) {
  cmd.add_option("-m,--model,--models", model,
                 "Model folder, or a file in it such as Marian's model.npz (default: the shipped "
                 "model)");
  const CLI::callback_t refuse = [](const CLI::results_t&) -> bool {
    throw UsageError(
        "-v/--vocabs: s2s takes the vocabularies from the model folder (decoder.yml, *.spm, "
        "vocab.yml); for a CTranslate2 folder without them give --source-spm and --target-spm");
  };
  cmd.add_option("-v,--vocabs", refuse,
                 "Marian's vocabulary files: not needed (s2s reads them from the model folder)")
      ->type_name("FILE")
      ->expected(1, 2);
}

void add_log_flag(CLI::App& cmd) {
  cmd.add_option_function<std::string>(
         "--log", [](const std::string& path) { log::open_file(path); },
         "Also append every message written to stderr (warnings, errors, the final summary; not "
         "the progress line) to FILE, as Marian's --log does; --quiet silences stderr only "
         "[default: none]")
      ->type_name("FILE");
}

}  // namespace s2s::app
