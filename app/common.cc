#include <filesystem>
#include <system_error>

#include "commands.h"
#include "s2s/formats/detect.h"

namespace s2s::app {

std::string model_path(const std::string& given, const Context& context) {
  if (!given.empty()) return given;
  // The running binary's own path: argv[0] is only a name when s2s is found through PATH.
  std::error_code ec;
  const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", ec);
  return formats::default_model_path(ec ? context.executable : self.string());
}

}  // namespace s2s::app
