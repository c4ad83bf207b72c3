// Tests of the .safetensors reader: the fixture written like the reference writer
// (tools/fixtures/make_reader_fixtures.py), headers built here, and broken files, which must all
// end in a ModelError naming the file.
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <random>

#include "s2s/formats/safetensors.h"
#include "test_utils.h"

namespace fs = std::filesystem;
using namespace s2s;
using namespace s2s::formats;
using Catch::Matchers::Contains;

namespace {

using test::TempDir;
using test::slurp;

std::string u64le(std::uint64_t v) {
  std::string out;
  for (int i = 0; i < 8; ++i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
  return out;
}

// A file with this header text (not padded) and data buffer.
std::string st_file(const std::string& header, const std::string& data) {
  return u64le(header.size()) + header + data;
}

// Opens a file and reads every tensor of a readable dtype. Returns "" on success or the
// ModelError message; any other exception escapes and fails the test.
std::string open_and_read_all(const std::string& path) {
  try {
    SafetensorsFile st(path);
    for (const std::string& name : st.names()) {
      const std::string& d = st.dtype_name(name);
      if (d == "F32" || d == "F16" || d == "BF16" || d == "I32" || d == "I64") st.read_tensor(name);
    }
    return "";
  } catch (const ModelError& e) {
    return e.what();
  }
}

}  // namespace

TEST_CASE("safetensors: fixture written like the reference writer", "[formats]") {
  const std::string path = test::data_path("safetensors/model.safetensors");
  SafetensorsFile st(path);
  // Offset order: the writer sorts by dtype (I64 F64 F32 I32 BF16 F16 U8), then name.
  CHECK(st.names() == std::vector<std::string>{"ids64", "doubles", "empty", "model.encoder.f32",
                                               "scalar", "ids32", "model.encoder.bf16",
                                               "model.encoder.f16", "bytes"});
  CHECK(st.metadata() == std::map<std::string, std::string>{{"format", "pt"},
                                                            {"source", "make_reader_fixtures.py"}});
  CHECK(st.contains("scalar"));
  CHECK_FALSE(st.contains("__metadata__"));
  CHECK(st.dtype_name("model.encoder.bf16") == "BF16");
  CHECK(st.shape("ids64") == Shape{3, 1});

  Tensor f32 = st.read_tensor("model.encoder.f32");
  REQUIRE(f32.shape() == Shape{2, 3, 4});
  for (int i = 0; i < 24; ++i) CHECK(f32.data<float>()[i] == i * 0.5f - 3);

  Tensor f16 = st.read_tensor("model.encoder.f16");
  REQUIRE(f16.dtype() == DataType::f32);
  const float half_expected[] = {
      1,     -2,       65504,    std::ldexp(1.f, -14), std::ldexp(1.f, -24), std::ldexp(1.f, -15),
      -0.0f, INFINITY, -INFINITY};
  for (int i = 0; i < 9; ++i) CHECK(f16.data<float>()[i] == half_expected[i]);
  CHECK(std::signbit(f16.data<float>()[6]));
  CHECK(std::isnan(f16.data<float>()[9]));

  Tensor bf16 = st.read_tensor("model.encoder.bf16");
  const float bf16_expected[] = {
      1, -2, 3.140625f, std::ldexp(1.f, -126), std::ldexp(1.f, -133), -INFINITY};
  REQUIRE(bf16.shape() == Shape{6});
  for (int i = 0; i < 6; ++i) CHECK(bf16.data<float>()[i] == bf16_expected[i]);

  Tensor ids32 = st.read_tensor("ids32");
  CHECK(ids32.dtype() == DataType::i32);
  for (int i = 0; i < 5; ++i) CHECK(ids32.data<std::int32_t>()[i] == i * 7 - 20);
  Tensor ids64 = st.read_tensor("ids64");
  CHECK(ids64.dtype() == DataType::i64);
  CHECK(ids64.data<std::int64_t>()[2] == -6);
  Tensor scalar = st.read_tensor("scalar");
  CHECK(scalar.rank() == 0);
  CHECK(scalar.data<float>()[0] == 2.5f);
  CHECK(st.read_tensor("empty").shape() == Shape{0, 3});

  CHECK_THROWS_WITH(st.read_tensor("bytes"),
                    Contains(path + ": tensor 'bytes' has dtype U8") && Contains("cannot read"));
  CHECK_THROWS_WITH(st.read_tensor("doubles"), Contains("tensor 'doubles' has dtype F64"));
  CHECK_THROWS_WITH(st.read_tensor("nope"), Contains(path + ": no tensor 'nope'"));
  CHECK_THROWS_AS(st.shape("nope"), ModelError);

  SafetensorsFile empty(test::data_path("safetensors/empty.safetensors"));
  CHECK(empty.names().empty());
  CHECK(empty.metadata().empty());
}

TEST_CASE("safetensors: headers as other writers may write them", "[formats]") {
  TempDir tmp;
  // The reference's own serialization test (tensor.rs test_serialization): an unpadded 64-byte
  // header followed by 6 floats.
  const std::string ref =
      "{\"attn.0\":{\"dtype\":\"F32\",\"shape\":[1,2,3],\"data_offsets\":[0,24]}}";
  REQUIRE(ref.size() == 64);
  const float v[6] = {0, 1, 2, 3, 4, 5};
  SafetensorsFile a(
      tmp.write("a.safetensors", st_file(ref, std::string(reinterpret_cast<const char*>(v), 24))));
  CHECK(a.read_tensor("attn.0").data<float>()[5] == 5.0f);

  // Any key order, whitespace, extra keys, entries listed out of offset order, zero-size tensors
  // sharing an offset, a non-ASCII name.
  const std::string header =
      "\n{ \"b\" : {\"data_offsets\": [4, 8], \"shape\": [1], \"dtype\": \"I32\", \"extra\": 1},\n"
      "  \"z\": {\"dtype\": \"F16\", \"shape\": [0], \"data_offsets\": [4, 4]},\n"
      "  \"\\u00e9\": {\"dtype\": \"F32\", \"shape\": [], \"data_offsets\": [0, 4]} }\t ";
  const std::int32_t data[2] = {0x3f800000, -7};
  SafetensorsFile b(tmp.write(
      "b.safetensors", st_file(header, std::string(reinterpret_cast<const char*>(data), 8))));
  CHECK(b.names() == std::vector<std::string>{"\xc3\xa9", "z", "b"});
  CHECK(b.read_tensor("\xc3\xa9").data<float>()[0] == 1.0f);
  CHECK(b.read_tensor("b").data<std::int32_t>()[0] == -7);
  CHECK(b.read_tensor("z").numel() == 0);
}

TEST_CASE("safetensors: broken files end in a ModelError naming the file", "[formats]") {
  TempDir tmp;
  const std::string good = slurp(test::data_path("safetensors/model.safetensors"));

  SECTION("missing, empty, directory, random bytes") {
    const std::string missing = (tmp.dir / "missing.safetensors").string();
    CHECK_THAT(open_and_read_all(missing), Contains(missing) && Contains("cannot open"));
    const std::string empty = tmp.write("empty.safetensors", "");
    CHECK_THAT(open_and_read_all(empty), Contains(empty + ": truncated: 0 bytes"));
    CHECK_THAT(open_and_read_all(tmp.dir.string()), Contains(tmp.dir.string()));
    std::mt19937 gen(11);
    for (std::size_t n : {1, 7, 8, 9, 100, 5000}) {
      std::string bytes(n, '\0');
      for (char& c : bytes) c = static_cast<char>(gen());
      const std::string path = tmp.write("random.safetensors", bytes);
      CHECK_THAT(open_and_read_all(path), Contains(path + ": "));
    }
  }

  SECTION("header length lies") {
    const std::string path = tmp.write("m.safetensors", u64le(1000) + "{}");
    CHECK_THAT(open_and_read_all(path),
               Contains(path + ": truncated: header of 1000 bytes claimed, 2 left"));
    for (std::uint64_t n : {std::uint64_t{100000001}, std::uint64_t{1} << 40, ~std::uint64_t{0}}) {
      const std::string p = tmp.write("m.safetensors", u64le(n) + "{}      ");
      CHECK_THAT(open_and_read_all(p), Contains(p + ": header length ") &&
                                           Contains("more than the 100000000 bytes allowed"));
    }
  }

  SECTION("bad headers") {
    const std::string f8(8, '\0');
    // {header, data buffer, expected message}
    const std::vector<std::tuple<std::string, std::string, std::string>> cases = {
        {R"({"a":)", "", "header is not valid JSON"},
        {"[1, 2]", "", "header is not a JSON object"},
        {std::string("{} \0\0", 5), "", "header is not valid JSON"},  // the reference rejects NULs
        {"{\"a\xff\":1}", "", "header is not valid JSON"},            // invalid UTF-8
        {R"({"a": 1})", "", "tensor 'a': entry is not a JSON object"},
        {R"({"a": {"dtype": "F32", "shape": [2]}})", f8, "lacks one of"},
        {R"({"a": {"dtype": 5, "shape": [2], "data_offsets": [0, 8]}})", f8,
         "dtype is not a string"},
        {R"({"a": {"dtype": "F33", "shape": [2], "data_offsets": [0, 8]}})", f8,
         "unknown dtype 'F33'"},
        {R"({"a": {"dtype": "F4", "shape": [2], "data_offsets": [0, 1]}})", f8,
         "unknown dtype 'F4'"},
        {R"({"a": {"dtype": "F32", "shape": 2, "data_offsets": [0, 8]}})", f8,
         "shape is not an array"},
        {R"({"a": {"dtype": "F32", "shape": [-2], "data_offsets": [0, 8]}})", f8,
         "dimension is not a non-negative integer: -2"},
        {R"({"a": {"dtype": "F32", "shape": [2.0], "data_offsets": [0, 8]}})", f8,
         "dimension is not a non-negative integer"},
        {R"({"a": {"dtype": "F32", "shape": [2], "data_offsets": [0, 4, 8]}})", f8,
         "data_offsets is not an array [begin, end]"},
        {R"({"a": {"dtype": "F32", "shape": [2], "data_offsets": [-1, 7]}})", f8,
         "data_offsets begin is not a non-negative integer"},
        {R"({"a": {"dtype": "F32", "shape": [2], "data_offsets": [8, 0]}})", f8,
         "data_offsets [8, 0] do not fit in the 8-byte data buffer"},
        {R"({"a": {"dtype": "F32", "shape": [4], "data_offsets": [0, 16]}})", f8,
         "data_offsets [0, 16] do not fit"},
        {R"({"a": {"dtype": "F32", "shape": [3], "data_offsets": [0, 8]}})", f8,
         "shape [3] of F32 needs 12 bytes, data_offsets give 8"},
        {R"({"a": {"dtype": "F32", "shape": [1], "data_offsets": [0, 4]},
             "b": {"dtype": "F32", "shape": [1], "data_offsets": [2, 6]}})",
         f8, "tensor 'b' starts at byte 2, but the previous tensor 'a' ends at byte 4 (overlap)"},
        {R"({"a": {"dtype": "F32", "shape": [1], "data_offsets": [0, 4]},
             "b": {"dtype": "I8", "shape": [2], "data_offsets": [6, 8]}})",
         f8, "tensor 'b' starts at byte 6, but the previous tensor 'a' ends at byte 4 (a gap)"},
        {R"({"a": {"dtype": "F32", "shape": [1], "data_offsets": [4, 8]}})", f8,
         "tensor 'a' starts at byte 4, but the data buffer starts at byte 0"},
        {R"({"a": {"dtype": "F32", "shape": [1], "data_offsets": [0, 4]}})", f8,
         "tensors end at byte 4 of the data buffer, but it has 8 bytes"},
        {R"({"a": {"dtype": "F32", "shape": [4294967296, 4294967296, 4], "data_offsets": [0, 8]}})",
         f8, "is too large"},
        {R"({"a": {"dtype": "F32", "shape": [0, 9223372036854775808], "data_offsets": [0, 0]}})",
         "", "is too large"},
        {R"({"a": {"dtype": "F32", "shape": [1099511627776, 0, 1099511627776],
                   "data_offsets": [0, 0]}})",
         "", "is too large"},  // empty, but its strides would overflow
        {R"({"a": {"dtype": "F32", "shape": [1000000, 1000000],
                   "data_offsets": [0, 4000000000000]}})",
         f8, "do not fit in the 8-byte data buffer"},
        {R"({"a": {"dtype": "F32", "shape": [2], "data_offsets": [0, 99999999999999999999999]}})",
         f8, "data_offsets end is not a non-negative integer"},
        {R"({"__metadata__": ["pt"]})", "", "__metadata__ is not a JSON object"},
        {R"({"__metadata__": {"format": 1}})", "",
         "__metadata__ value of 'format' is not a string"},
    };
    for (const auto& [header, data, expected] : cases) {
      INFO(header);
      const std::string path = tmp.write("bad.safetensors", st_file(header, data));
      CHECK_THAT(open_and_read_all(path), Contains(path + ": ") && Contains(expected));
    }
  }

  SECTION("truncated at every length") {
    for (std::size_t cut = 0; cut < good.size(); ++cut) {
      INFO("cut at " << cut);
      const std::string path = tmp.write("cut.safetensors", good.substr(0, cut));
      CHECK_THAT(open_and_read_all(path), Contains(path + ": "));
    }
  }

  SECTION("every single flipped byte: success or ModelError, never a crash") {
    for (std::size_t i = 0; i < good.size(); ++i) {
      std::string bytes = good;
      bytes[i] ^= 0x5a;
      const std::string path = tmp.write("flip.safetensors", bytes);
      const std::string message = open_and_read_all(path);
      if (!message.empty()) CHECK_THAT(message, Contains(path + ": "));
    }
  }
}
