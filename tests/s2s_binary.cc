// The path of the s2s command built beside the tests, from the one compile definition that names
// the build folder (tests/CMakeLists.txt sets it on this file only: test_utils.h says why).
#include <string>

#include "test_utils.h"

namespace s2s::test {

const std::string& s2s_binary() {
  static const std::string path = S2S_BINARY;
  return path;
}

}  // namespace s2s::test
