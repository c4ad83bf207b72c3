// join and throw_if_problems: the one way s2s writes a list into a message.
#include <catch2/catch.hpp>

#include "s2s/core/error.h"
#include "s2s/core/problems.h"
#include "s2s/core/strings.h"

namespace s2s {

using Catch::Matchers::Equals;

TEST_CASE("join writes the parts with the separator between them", "[core]") {
  CHECK(join({}, ", ").empty());
  CHECK(join({"a"}, ", ") == "a");
  CHECK(join({"a", "", "c"}, "|||") == "a||||||c");
  CHECK(join({"a", "b", "c"}, ", ", 3) == "a, b, c");
  CHECK(join({"a", "b", "c"}, ", ", 2) == "a, b, ... (3 in all)");
}

TEST_CASE("throw_if_problems throws one error with every problem", "[core]") {
  CHECK_NOTHROW(throw_if_problems<ModelError>("m.npz: invalid model", {}));
  CHECK_THROWS_AS(throw_if_problems<UsageError>("x", {"y"}), UsageError);
  CHECK_THROWS_WITH(throw_if_problems<ModelError>("m.npz: invalid model", {"heads 0", "d 3"}),
                    Equals("m.npz: invalid model: heads 0; d 3"));
}

}  // namespace s2s
