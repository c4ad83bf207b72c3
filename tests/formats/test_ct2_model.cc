// Tests of the CTranslate2 model.bin reader: fixtures written like ModelSpec._serialize
// (tools/fixtures/make_reader_fixtures.py), files built here, and broken files, which must all end
// in a ModelError naming the file.
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <random>

#include "s2s/formats/ct2_model.h"
#include "test_utils.h"

namespace fs = std::filesystem;
using namespace s2s;
using namespace s2s::formats;
using Catch::Matchers::Contains;

namespace {

using test::TempDir;
using test::slurp;

// Writes model.bin records in the order the caller gives them (version >= 4 layout).
struct Ct2Builder {
  std::string out;
  Ct2Builder() = default;
  explicit Ct2Builder(std::uint32_t version) {
    u(version, 4);
    if (version >= 2) str("TransformerSpec"), u(1, 4);
  }
  Ct2Builder& u(std::uint64_t v, int bytes) {
    for (int i = 0; i < bytes; ++i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
    return *this;
  }
  Ct2Builder& str(const std::string& s) {
    u(s.size() + 1, 2);
    out += s;
    out.push_back('\0');
    return *this;
  }
  // A variable of `nbytes` bytes (claimed) followed by `data` (actual).
  Ct2Builder& var(const std::string& name, const std::vector<std::uint32_t>& dims, int type,
                  std::uint32_t nbytes, const std::string& data) {
    str(name).u(dims.size(), 1);
    for (std::uint32_t d : dims) u(d, 4);
    u(type, 1).u(nbytes, 4);
    out += data;
    return *this;
  }
  Ct2Builder& f32(const std::string& name, const std::vector<std::uint32_t>& dims, int n) {
    return var(name, dims, 0, 4 * n, std::string(4 * n, '\0'));
  }
};

// Opens a file and reads every name. Returns "" on success or the ModelError message; any other
// exception escapes and fails the test.
std::string open_and_read_all(const std::string& path) {
  try {
    Ct2ModelFile ct2(path);
    for (const std::string& name : ct2.names()) ct2.read_tensor(name);
    return "";
  } catch (const ModelError& e) {
    return e.what();
  }
}

}  // namespace

TEST_CASE("ct2: version 6 fixture", "[formats]") {
  const std::string path = test::data_path("ct2/model_v6.bin");
  Ct2ModelFile ct2(path);
  CHECK(ct2.version() == 6);
  CHECK(ct2.spec_name() == "TransformerSpec");
  CHECK(ct2.revision() == 1);
  const std::vector<std::string> names = ct2.names();
  REQUIRE(names.size() == 19 + 4);
  CHECK(names[0] == "decoder/activation");  // the writer sorts variables by name
  CHECK(std::vector<std::string>(names.end() - 4, names.end()) ==
        std::vector<std::string>{"decoder/alias_of_alias", "decoder/projection/weight",
                                 "decoder/alias_of_alias_scale",
                                 "decoder/projection/weight_scale"});

  Tensor f32 = ct2.read_tensor("encoder/layer_0/ffn/linear_0/weight");
  REQUIRE(f32.shape() == Shape{2, 3, 4});
  for (int i = 0; i < 24; ++i) CHECK(f32.data<float>()[i] == i * 0.5f - 3);
  Tensor f16 = ct2.read_tensor("decoder/layer_0/ffn/linear_0/weight");
  CHECK(ct2.dtype_name("decoder/layer_0/ffn/linear_0/weight") == std::string("float16"));
  REQUIRE(f16.shape() == Shape{2, 5});
  CHECK(f16.data<float>()[2] == 65504.0f);
  CHECK(f16.data<float>()[4] == std::ldexp(1.f, -24));
  CHECK(std::isnan(f16.data<float>()[9]));
  Tensor bf16 = ct2.read_tensor("decoder/layer_0/self_attention/relative_position_keys");
  REQUIRE(bf16.shape() == Shape{3, 2});
  CHECK(bf16.data<float>()[2] == 3.140625f);
  CHECK(bf16.data<float>()[4] == std::ldexp(1.f, -133));
  CHECK(bf16.data<float>()[5] == -INFINITY);
  Tensor ids = ct2.read_tensor("encoder/ids");
  CHECK(ids.dtype() == DataType::i32);
  CHECK(ids.data<std::int32_t>()[4] == 8);
  Tensor i16 = ct2.read_tensor("encoder/int16_weight");  // widened: s2s has no int16 tensors
  CHECK(ct2.dtype_name("encoder/int16_weight") == std::string("int16"));
  REQUIRE(i16.dtype() == DataType::i32);
  CHECK(std::vector<std::int32_t>(i16.data<std::int32_t>(), i16.data<std::int32_t>() + 4) ==
        std::vector<std::int32_t>{-32768, -1, 0, 32767});
  CHECK(ct2.read_tensor("encoder/empty").shape() == Shape{0, 4});

  // Aliases: an alias of an alias, and the "_scale" aliases Model::load adds.
  CHECK(ct2.resolve("decoder/alias_of_alias") == "decoder/embeddings/weight");
  CHECK(ct2.resolve("decoder/embeddings/weight") == "decoder/embeddings/weight");
  Tensor tied = ct2.read_tensor("decoder/alias_of_alias");
  REQUIRE(tied.dtype() == DataType::i8);
  REQUIRE(tied.shape() == Shape{4, 3});
  CHECK(tied.data<std::int8_t>()[11] == 57);
  CHECK(ct2.resolve("decoder/projection/weight_scale") == "decoder/embeddings/weight_scale");
  CHECK(ct2.read_tensor("decoder/alias_of_alias_scale").data<float>()[3] == 4.0f);
  CHECK_FALSE(ct2.contains("decoder/embeddings/weight_scale_scale"));

  // Attributes.
  CHECK(ct2.read_int("decoder/num_heads") == 4);
  CHECK(ct2.read_int("decoder/activation") == 2);
  CHECK(ct2.read_int("encoder/sliding_window") == 100000);
  CHECK(ct2.read_bool("decoder/scale_embeddings") == true);
  CHECK(ct2.read_bool("decoder/alibi") == false);
  CHECK(ct2.read_float("decoder/layer_0/self_attention/rotary_scaling_factor") == 2.5f);
  CHECK(ct2.read_string("unk_token") == "<unk>");
  CHECK(ct2.read_string("eos_token") == "</s>");
  CHECK(ct2.read_string("decoder/lang") == "\xc3\xa9\xe2\x82\xac");
  CHECK(ct2.read_string("empty_string") == "");
  CHECK_FALSE(ct2.read_int("decoder/num_layers").has_value());
  CHECK_FALSE(ct2.read_bool("nope").has_value());
  CHECK_FALSE(ct2.read_float("nope").has_value());
  CHECK_FALSE(ct2.read_string("bos_token").has_value());

  CHECK_THROWS_WITH(ct2.read_int("decoder/layer_0/ffn/linear_0/bias"),
                    Contains(path + ": attribute 'decoder/layer_0/ffn/linear_0/bias' holds "
                                    "float32 [2], expected one int8, int16 or int32 value"));
  CHECK_THROWS_WITH(ct2.read_bool("decoder/layer_0/self_attention/rotary_scaling_factor"),
                    Contains("expected one int8 flag"));
  CHECK_THROWS_WITH(ct2.read_float("decoder/num_heads"), Contains("holds int16 []"));
  CHECK_THROWS_WITH(ct2.read_string("decoder/alibi"), Contains("expected a 1-D int8 array"));
  CHECK_THROWS_WITH(ct2.read_string("encoder/ids"), Contains("holds int32 [5]"));
  CHECK_THROWS_WITH(ct2.read_tensor("nope"), Contains(path + ": no variable or alias 'nope'"));
  CHECK_THROWS_AS(ct2.shape("nope"), ModelError);
}

TEST_CASE("ct2: versions 1 to 3 store item size and element count", "[formats]") {
  for (std::uint32_t version : {1u, 2u, 3u}) {
    INFO("version " << version);
    Ct2ModelFile ct2(test::data_path("ct2/model_v" + std::to_string(version) + ".bin"));
    CHECK(ct2.version() == version);
    CHECK(ct2.spec_name() == (version == 1 ? "" : "TransformerSpec"));
    CHECK(ct2.revision() == 1);
    Tensor w = ct2.read_tensor("w");
    REQUIRE(w.shape() == Shape{2, 2});
    CHECK(w.data<float>()[3] == -1.5f);
    Tensor q = ct2.read_tensor("q");  // item size 2 is int16 (model.cc get_dtype_from_item_size)
    CHECK(ct2.dtype_name("q") == std::string("int16"));
    CHECK(q.data<std::int32_t>()[2] == -6);
    CHECK(ct2.read_tensor("b").data<std::int8_t>()[1] == -13);
    CHECK(ct2.contains("w_tied") == (version == 3));
  }
}

TEST_CASE("ct2: versions 4 and 5 share the version 6 layout", "[formats]") {
  TempDir tmp;
  for (std::uint32_t version : {4u, 5u}) {
    Ct2Builder b(version);
    b.u(1, 4).f32("a", {3}, 3).u(1, 4).str("b").str("a");
    Ct2ModelFile ct2(tmp.write("m.bin", b.out));
    CHECK(ct2.names() == std::vector<std::string>{"a", "b"});
    CHECK(ct2.shape("b") == Shape{3});
  }
}

TEST_CASE("ct2: broken files end in a ModelError naming the file", "[formats]") {
  TempDir tmp;

  SECTION("missing, empty, directory, random bytes") {
    const std::string missing = (tmp.dir / "missing.bin").string();
    CHECK_THAT(open_and_read_all(missing), Contains(missing) && Contains("cannot open"));
    const std::string empty = tmp.write("model.bin", "");
    CHECK_THAT(open_and_read_all(empty), Contains(empty + ": empty file"));
    CHECK_THAT(open_and_read_all(tmp.dir.string()), Contains(tmp.dir.string()));
    std::mt19937 gen(5);
    for (std::size_t n : {1, 3, 4, 100, 5000}) {
      std::string bytes(n, '\0');
      for (char& c : bytes) c = static_cast<char>(gen());
      const std::string path = tmp.write("random.bin", bytes);
      CHECK_THAT(open_and_read_all(path), Contains(path + ": "));
    }
  }

  SECTION("unsupported versions") {
    for (std::uint32_t version : {0u, 7u, 0x12345678u}) {
      const std::string path = tmp.write(
          "model.bin", Ct2Builder().u(version, 4).str("TransformerSpec").u(1, 4).u(0, 8).out);
      CHECK_THAT(open_and_read_all(path),
                 Contains(path + ": unsupported CTranslate2 binary version " +
                          std::to_string(version) + " (supported: 1 to 6)"));
    }
  }

  SECTION("records that lie") {
    const std::string w = "encoder/layer_0/ffn/linear_0/weight";
    std::vector<std::pair<Ct2Builder, std::string>> cases;
    auto add = [&](Ct2Builder b, const std::string& expected) {
      cases.emplace_back(std::move(b), expected);
    };
    add(Ct2Builder(6).u(1, 4).var(w, {32, 32}, 0, 4096, std::string(100, '\0')),
        "variable '" + w + "': 4096 bytes claimed, 100 left");
    add(Ct2Builder(6).u(1, 4).var("a", {3}, 0, 8, std::string(8, '\0')).u(0, 4),
        "variable 'a': shape [3] of float32 needs 12 bytes, the file gives 8");
    add(Ct2Builder(6).u(1, 4).var("a", {65536, 65536, 65536}, 0, 8, std::string(8, '\0')).u(0, 4),
        "variable 'a': shape [65536, 65536, 65536] of float32 needs 1125899906842624 bytes, the "
        "file "
        "gives 8");
    add(Ct2Builder(6)
            .u(1, 4)
            .var("a", std::vector<std::uint32_t>(8, 0xffffffffu), 1, 0, "")
            .u(0, 4),
        "variable 'a': shape [4294967295, 4294967295, 4294967295, 4294967295, 4294967295, "
        "4294967295, 4294967295, 4294967295] is too large");
    add(Ct2Builder(6)
            .u(1, 4)
            .var("a", {0, 0xffffffffu, 0xffffffffu, 0xffffffffu}, 1, 0, "")
            .u(0, 4),
        "is too large");  // empty, but its strides would overflow
    add(Ct2Builder(6).u(1, 4).var("a", std::vector<std::uint32_t>(9, 1), 0, 4,
                                  std::string(4, '\0')),
        "variable 'a': rank 9 (at most 8 is accepted)");
    add(Ct2Builder(6).u(1, 4).var("a", {1}, 6, 4, std::string(4, '\0')),
        "variable 'a': unknown dtype id 6");
    add(Ct2Builder(3).u(1, 4).var("a", {1}, 3, 1, std::string(3, '\0')),
        "variable 'a': item size 3");
    add(Ct2Builder(6).u(0xffffffffu, 4), "truncated: name of variable 0 length at byte");
    add(Ct2Builder(6).u(0, 4).u(0xffffffffu, 4), "truncated: name of alias 0 length");
    add(Ct2Builder(6).u(1, 4).u(0, 2), "name of variable 0: string length 0");
    add(Ct2Builder(6).u(1, 4).u(3, 2).u(0x616161, 3),
        "name of variable 0: string at byte 32 does not end in a NUL");
    add(Ct2Builder(6).u(1, 4).u(60000, 2).u(0, 8),
        "truncated: name of variable 0: 60000 bytes claimed, 8 left");
    add(Ct2Builder(6).u(2, 4).f32("a", {1}, 1).f32("a", {1}, 1).u(0, 4),
        "variable 'a' appears twice");
    add(Ct2Builder(6).u(1, 4).f32("a", {1}, 1).u(1, 4).str("b").str("c"),
        "alias 'b' points to 'c', which is neither a variable nor an alias");
    add(Ct2Builder(6).u(1, 4).f32("a", {1}, 1).u(2, 4).str("b").str("c").str("c").str("b"),
        "is part of a cycle");
    add(Ct2Builder(6).u(1, 4).f32("a", {1}, 1).u(1, 4).str("b").str("b"),
        "alias 'b' is part of a cycle");
    add(Ct2Builder(6).u(1, 4).f32("a", {1}, 1).u(1, 4).str("a").str("a"),
        "alias 'a' has the name of a variable");
    add(Ct2Builder(6).u(1, 4).f32("a", {1}, 1).u(2, 4).str("b").str("a").str("b").str("a"),
        "alias 'b' appears twice");
    add(Ct2Builder(6).u(1, 4).f32("a", {1}, 1).u(0, 4).u(0, 1),
        "1 unexpected bytes after the last record");
    add(Ct2Builder(2).u(0, 4).u(0, 4),
        "4 unexpected bytes after the last record");  // no aliases in v2
    for (const auto& [builder, expected] : cases) {
      INFO(expected);
      const std::string path = tmp.write("model.bin", builder.out);
      CHECK_THAT(open_and_read_all(path), Contains(path + ": ") && Contains(expected));
    }
  }

  SECTION("truncated at every length") {
    for (const char* file : {"ct2/model_v6.bin", "ct2/model_v3.bin", "ct2/model_v1.bin"}) {
      const std::string good = slurp(test::data_path(file));
      for (std::size_t cut = 0; cut < good.size(); ++cut) {
        INFO(file << " cut at " << cut);
        const std::string path = tmp.write("model.bin", good.substr(0, cut));
        CHECK_THAT(open_and_read_all(path), Contains(path + ": "));
      }
    }
  }

  SECTION("every single flipped byte: success or ModelError, never a crash") {
    const std::string good = slurp(test::data_path("ct2/model_v6.bin"));
    for (std::size_t i = 0; i < good.size(); ++i) {
      std::string bytes = good;
      bytes[i] ^= 0x5a;
      const std::string path = tmp.write("model.bin", bytes);
      const std::string message = open_and_read_all(path);
      if (!message.empty()) CHECK_THAT(message, Contains(path + ": "));
    }
  }
}
