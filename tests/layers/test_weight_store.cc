// WeightStore: how a linear weight is handed to the layer that packs it.
#include <catch2/catch.hpp>

#include "s2s/core/error.h"
#include "s2s/layers/weights.h"

using namespace s2s;

TEST_CASE("WeightStore hands a linear weight over unless another name refers to it", "[layers]") {
  layers::WeightStore store("model.npz");
  Tensor own({3, 4});
  const void* own_data = own.raw();
  store.add("a/weight", std::move(own));
  store.add("embeddings", Tensor({5, 3}), ops::WeightLayout::in_out);
  store.alias("output/weight", "embeddings");

  // Not tied: the tensor itself moves out, and the store keeps nothing of it.
  auto a = store.take_linear("a/weight", 3, 4);
  CHECK(a.weight.owns_buffer());
  CHECK(a.weight.raw() == own_data);
  CHECK(a.weight.shape() == Shape{3, 4});
  CHECK_THROWS_AS(store.take_linear("a/weight", 3, 4), ModelError);

  // Tied (an alias, or the target of one): views, and the store keeps the tensor for both names.
  auto tied = store.take_linear("output/weight", 5, 3);
  CHECK_FALSE(tied.weight.owns_buffer());
  auto target = store.take_linear("embeddings", 5, 3);
  CHECK_FALSE(target.weight.owns_buffer());
  CHECK(target.weight.raw() == tied.weight.raw());
  CHECK(store.take("embeddings", {5, 3}).raw() == tied.weight.raw());
  CHECK(store.untaken().empty());
}
