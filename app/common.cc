#include <filesystem>
#include <system_error>

#include "commands.h"
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
  return formats::default_model_path(executable_path(context));
}

std::string config_path(const std::string& given, const Context& context) {
  return given.empty() ? given : formats::config_path(given, executable_path(context));
}

}  // namespace s2s::app
