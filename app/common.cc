#include "commands.h"
#include "s2s/formats/detect.h"

namespace s2s::app {

std::string model_path(const std::string& given, const Context& context) {
  return given.empty() ? formats::default_model_path(context.executable) : given;
}

}  // namespace s2s::app
