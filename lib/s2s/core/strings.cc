#include "s2s/core/strings.h"

namespace s2s {

std::string join(const std::vector<std::string>& parts, std::string_view separator,
                 std::size_t most) {
  std::string out;
  for (std::size_t i = 0; i < parts.size() && i < most; ++i) {
    if (i) out += separator;
    out += parts[i];
  }
  if (parts.size() > most)
    out.append(separator).append("... (" + std::to_string(parts.size()) + " in all)");
  return out;
}

}  // namespace s2s
