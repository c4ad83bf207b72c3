#include <cstdlib>
#include <filesystem>
#include <system_error>

#include "commands.h"
#include "s2s/core/error.h"
#include "s2s/core/log.h"
#include "s2s/formats/detect.h"

namespace s2s::app {

namespace {

// The running binary's own path: argv[0] is only a name when s2s is found through PATH.
std::string executable_path(const Context& context) {
  std::error_code ec;
  const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", ec);
  return ec ? context.executable : self.string();
}

}  // namespace

std::string model_path(const std::string& given, const Context& context) {
  if (!given.empty()) return given;
  const std::string path = formats::default_model_path(executable_path(context));
  // A folder from the environment is not on the command line: say where it came from.
  const char* env = std::getenv("S2S_MODEL");
  std::error_code ec;
  if (env != nullptr && path == env && !std::filesystem::is_directory(path, ec))
    throw ModelError("S2S_MODEL=" + path + ": no such model folder");
  return path;
}

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

std::string config_path(const std::string& given, const Context& context) {
  return given.empty() ? given : formats::config_path(given, executable_path(context));
}

}  // namespace s2s::app
