// Lists of texts written as one text: the one join of s2s, used for error messages, choices in
// help text and pieces of output alike.
#pragma once

#include <cstddef>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

namespace s2s {

// join({"a", "b", "c"}, ", ") == "a, b, c". With `most` set, only the first `most` parts are
// written, then "... (N in all)": join(names, ", ", 2) == "a, b, ... (3 in all)", so that an error
// about thousands of tensors stays one readable line.
std::string join(const std::vector<std::string>& parts, std::string_view separator,
                 std::size_t most = std::numeric_limits<std::size_t>::max());

}  // namespace s2s
