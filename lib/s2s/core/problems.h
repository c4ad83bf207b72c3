// Everything wrong with one thing (a model's config, a set of tensors), reported as one error:
// a broken model folder is refused with one line that names the file and all that is wrong
// (docs/contributing.md, "Style"), not just the first problem a loader happened to check.
#pragma once

#include <string>
#include <vector>

#include "s2s/core/strings.h"

namespace s2s {

// Throws ErrorType("<what>: <problem>; <problem>...") when `problems` is not empty.
//   throw_if_problems<ModelError>(path + ": unsupported model", problems);
template <typename ErrorType>
void throw_if_problems(const std::string& what, const std::vector<std::string>& problems) {
  if (!problems.empty()) throw ErrorType(what + ": " + join(problems, "; "));
}

}  // namespace s2s
