// TensorIndex, the names part the npz, safetensors and CTranslate2 readers share: lookups, and
// errors that name the file, the missing name and the names closest to it.
#include <catch2/catch.hpp>

#include "s2s/core/error.h"
#include "s2s/formats/tensor_index.h"

namespace s2s::formats {

using Catch::Matchers::Equals;

namespace {

struct Names : TensorIndex {
  Names() : TensorIndex("m.bin", "tensor", "tensors") {}
  using TensorIndex::add;
  using TensorIndex::position;
};

}  // namespace

TEST_CASE("a tensor index finds names in the order they were added", "[formats]") {
  Names index;
  CHECK(index.add("encoder_l1_self_Wq", "tensor") == 0);
  CHECK(index.add("encoder_l1_self_Wk", "tensor") == 1);
  CHECK(index.add("decoder_l1_self_Wq", "tensor") == 2);
  CHECK(index.path() == "m.bin");
  CHECK(index.names() ==
        std::vector<std::string>{"encoder_l1_self_Wq", "encoder_l1_self_Wk", "decoder_l1_self_Wq"});
  CHECK(index.contains("encoder_l1_self_Wk"));
  CHECK_FALSE(index.contains("encoder_l1_self_Wv"));
  CHECK(index.position("decoder_l1_self_Wq") == 2);

  CHECK_THROWS_WITH(index.position("encoder_l1_self_Wv"),
                    Equals("m.bin: no tensor 'encoder_l1_self_Wv' (the file has 3 tensors; "
                           "closest: encoder_l1_self_Wq, encoder_l1_self_Wk)"));
  CHECK_THROWS_WITH(index.position("xyz"),
                    Equals("m.bin: no tensor 'xyz' (the file has 3 tensors)"));
  CHECK_THROWS_WITH(index.add("encoder_l1_self_Wk", "alias"),
                    Equals("m.bin: alias 'encoder_l1_self_Wk' appears twice"));
  CHECK_THROWS_AS(index.position(""), ModelError);
}

}  // namespace s2s::formats
