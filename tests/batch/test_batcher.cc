// Batcher: every sentence once, sorted by length, limits respected.
#include <algorithm>

#include "s2s/batch/batcher.h"
#include "test_utils.h"

namespace s2s {

namespace {
void check_partition(const std::vector<std::vector<std::size_t>>& batches, std::size_t n) {
  std::vector<std::size_t> seen;
  for (const auto& b : batches) {
    CHECK_FALSE(b.empty());
    seen.insert(seen.end(), b.begin(), b.end());
  }
  std::sort(seen.begin(), seen.end());
  std::vector<std::size_t> all(n);
  for (std::size_t i = 0; i < n; ++i) all[i] = i;
  CHECK(seen == all);
}
}  // namespace

TEST_CASE("batches by sentence count, sorted by length", "[batch]") {
  const std::vector<std::size_t> lengths = {5, 1, 9, 3, 3, 7, 2};
  const auto batches = batch::make_batches(lengths, {3, 0});
  check_partition(batches, lengths.size());
  REQUIRE(batches.size() == 3);
  CHECK(batches[0] == std::vector<std::size_t>{1, 6, 3});  // lengths 1, 2, 3
  CHECK(batches[1] == std::vector<std::size_t>{4, 0, 5});  // ties keep input order
  CHECK(batches[2] == std::vector<std::size_t>{2});
}

TEST_CASE("batches by padded tokens", "[batch]") {
  const std::vector<std::size_t> lengths = {4, 4, 4, 10, 2, 30};
  const auto batches = batch::make_batches(lengths, {100, 12});
  check_partition(batches, lengths.size());
  for (const auto& b : batches) {
    std::size_t longest = 0;
    for (std::size_t i : b) longest = std::max(longest, lengths[i]);
    // A batch stays within the budget unless it is one sentence longer than the budget.
    CHECK((b.size() * longest <= 12 || b.size() == 1));
  }
  CHECK(batches.back() == std::vector<std::size_t>{5});
}

TEST_CASE("empty input and bad limits", "[batch]") {
  CHECK(batch::make_batches({}, {4, 0}).empty());
  CHECK_THROWS_AS(batch::make_batches({1}, {0, 0}), UsageError);
  CHECK_THROWS_AS(batch::make_batches({1}, {1, -5}), UsageError);
}

}  // namespace s2s
