// Tests of the .npy/.npz readers: archives built here byte by byte (cnpy style, optionally zip64),
// fixtures written by numpy (tools/fixtures/make_npz_fixtures.py), and broken inputs, which must
// all end in a ModelError naming the file.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <unistd.h>

#include "s2s/formats/npy.h"
#include "s2s/formats/npz.h"
#include "test_utils.h"

namespace fs = std::filesystem;
using namespace s2s;
using namespace s2s::formats;
using Catch::Matchers::Contains;

namespace {

// ---- A small zip writer (stored entries, cnpy layout; zip64 fields on request) ----

std::uint32_t crc32_ref(const std::string& s) {
  std::uint32_t crc = 0xffffffffu;
  for (unsigned char c : s) {
    crc ^= c;
    for (int k = 0; k < 8; ++k) crc = (crc >> 1) ^ (0xedb88320u & (0u - (crc & 1u)));
  }
  return ~crc;
}

void put(std::string& out, std::uint64_t v, int bytes) {
  for (int i = 0; i < bytes; ++i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}

// npy v1.0 as cnpy writes it: header padded with spaces so that the data starts at a multiple of 16.
std::string npy(const std::string& descr, const Shape& shape, const void* data, std::size_t nbytes,
                const std::string& dict_override = "") {
  std::string dict = "{'descr': '" + descr + "', 'fortran_order': False, 'shape': (";
  for (std::size_t i = 0; i < shape.size(); ++i) dict += (i ? ", " : "") + std::to_string(shape[i]);
  dict += shape.size() == 1 ? ",), }" : "), }";
  if (!dict_override.empty()) dict = dict_override;
  while ((10 + dict.size() + 1) % 16) dict += ' ';
  dict += '\n';
  std::string out = "\x93NUMPY\x01";
  out.push_back('\0');
  put(out, dict.size(), 2);
  return out + dict + std::string(static_cast<const char*>(data), nbytes);
}

template <typename T>
std::string npy_of(const std::string& descr, const Shape& shape, const std::vector<T>& v) {
  return npy(descr, shape, v.data(), v.size() * sizeof(T));
}

class ZipWriter {
 public:
  void add(const std::string& name, const std::string& data) {
    const std::uint32_t crc = crc32_ref(data);
    const std::uint64_t offset = out_.size();
    put(out_, 0x04034b50, 4);
    put(out_, 20, 2), put(out_, 0, 2), put(out_, 0, 2), put(out_, 0, 4);  // version flags method time
    put(out_, crc, 4), put(out_, data.size(), 4), put(out_, data.size(), 4);
    put(out_, name.size(), 2), put(out_, 0, 2);
    out_ += name + data;

    std::string extra;
    if (zip64_) {  // all three values saturated: uncompressed, compressed, offset
      put(extra, 1, 2), put(extra, 24, 2);
      put(extra, data.size(), 8), put(extra, data.size(), 8), put(extra, offset, 8);
    }
    const std::uint64_t size32 = zip64_ ? 0xffffffff : data.size();
    put(cd_, 0x02014b50, 4);
    put(cd_, 20, 2), put(cd_, 20, 2), put(cd_, 0, 2), put(cd_, 0, 2), put(cd_, 0, 4);
    put(cd_, crc, 4), put(cd_, size32, 4), put(cd_, size32, 4);
    put(cd_, name.size(), 2), put(cd_, extra.size(), 2), put(cd_, 0, 2);
    put(cd_, 0, 2), put(cd_, 0, 2), put(cd_, 0, 4), put(cd_, zip64_ ? 0xffffffff : offset, 4);
    cd_ += name + extra;
    ++count_;
  }
  std::string finish(const std::string& comment = "") {
    std::string out = out_;
    const std::uint64_t cd_offset = out.size();
    out += cd_;
    if (zip64_) {
      const std::uint64_t record = out.size();
      put(out, 0x06064b50, 4), put(out, 44, 8), put(out, 45, 2), put(out, 45, 2);
      put(out, 0, 4), put(out, 0, 4), put(out, count_, 8), put(out, count_, 8);
      put(out, cd_.size(), 8), put(out, cd_offset, 8);
      put(out, 0x07064b50, 4), put(out, 0, 4), put(out, record, 8), put(out, 1, 4);
    }
    put(out, 0x06054b50, 4), put(out, 0, 2), put(out, 0, 2);
    put(out, zip64_ ? 0xffff : count_, 2), put(out, zip64_ ? 0xffff : count_, 2);
    put(out, zip64_ ? 0xffffffff : cd_.size(), 4), put(out, zip64_ ? 0xffffffff : cd_offset, 4);
    put(out, comment.size(), 2);
    return out + comment;
  }
  bool zip64_ = false;

 private:
  std::string out_, cd_;
  std::uint64_t count_ = 0;
};

using test::TempDir;
using test::slurp;

// Opens an archive and reads every entry. Returns "" on success or the ModelError message; any
// other exception escapes and fails the test.
std::string open_and_read_all(const std::string& path) {
  try {
    NpzArchive npz(path);
    for (const std::string& name : npz.names()) npz.read(name);
    return "";
  } catch (const ModelError& e) {
    return e.what();
  }
}

// A cnpy-style archive holding an f32 matrix and Marian's NUL-padded config text.
ZipWriter small_archive(bool zip64) {
  ZipWriter zip;
  zip.zip64_ = zip64;
  zip.add("encoder_l1_self_Wq.npy", npy_of<float>("<f4", {2, 3}, {1, 2, 3, 4, 5, -6.5f}));
  const std::string text = std::string("type: transformer\n") + std::string(7, '\0');
  zip.add("special:model.yml.npy", npy("<i1", {dim_t(text.size())}, text.data(), text.size()));
  return zip;
}

float half_reference(std::uint16_t h) {
  const int sign = h >> 15, exponent = (h >> 10) & 31, mantissa = h & 1023;
  double v;
  if (exponent == 31) v = mantissa ? NAN : INFINITY;
  else if (exponent == 0) v = std::ldexp(mantissa, -24);
  else v = std::ldexp(1024 + mantissa, exponent - 25);
  return static_cast<float>(sign ? -v : v);
}

}  // namespace

TEST_CASE("npz: cnpy-style stored archive, plain and zip64", "[formats]") {
  TempDir tmp;
  for (bool zip64 : {false, true}) {
    for (const std::string comment : {"", "a zip comment"}) {
      INFO("zip64 " << zip64 << ", comment '" << comment << "'");
      const std::string path = tmp.write("m.npz", small_archive(zip64).finish(comment));
      NpzArchive npz(path);
      CHECK(npz.names() == std::vector<std::string>{"encoder_l1_self_Wq", "special:model.yml"});
      CHECK(npz.contains("encoder_l1_self_Wq"));
      CHECK_FALSE(npz.contains("encoder_l1_self_Wq.npy"));
      const NpyArray a = npz.read("encoder_l1_self_Wq");
      CHECK(a.descr == "<f4");
      REQUIRE(a.tensor.shape() == Shape{2, 3});
      CHECK(a.tensor.data<float>()[5] == -6.5f);
      CHECK(npz.read_text("special:model.yml") == "type: transformer\n");
      CHECK_THAT(open_and_read_all(path), Catch::Matchers::Equals(""));
    }
  }
}

TEST_CASE("npz: numpy savez and savez_compressed fixtures", "[formats]") {
  for (const char* file : {"npz/savez.npz", "npz/savez_compressed.npz"}) {
    INFO(file);
    NpzArchive npz(test::data_path(file));
    CHECK(npz.names().size() == 9);
    Tensor w = npz.read_tensor("encoder_l1_self_Wq");
    REQUIRE(w.shape() == Shape{2, 3, 4});
    for (int i = 0; i < 24; ++i) CHECK(w.data<float>()[i] == i * 0.5f - 3);

    const NpyArray half = npz.read("half");
    CHECK(half.file_dtype == DataType::f16);
    REQUIRE(half.tensor.dtype() == DataType::f32);
    const float* h = half.tensor.data<float>();
    const float expected[] = {1, -2, 65504, std::ldexp(1.f, -14), std::ldexp(1.f, -24),
                              std::ldexp(1.f, -15), -0.0f, INFINITY, -INFINITY};
    for (int i = 0; i < 9; ++i) CHECK(h[i] == expected[i]);
    CHECK(std::signbit(h[6]));
    CHECK(std::isnan(h[9]));

    CHECK(npz.read_text("special:model.yml") == "type: transformer\ndim-emb: 8\n");
    Tensor ids32 = npz.read_tensor("ids32");
    CHECK(ids32.data<std::int32_t>()[4] == 8);
    Tensor ids64 = npz.read_tensor("ids64");
    CHECK(ids64.shape() == Shape{3, 1});
    CHECK(ids64.data<std::int64_t>()[0] == -20);
    Tensor flags = npz.read_tensor("flags");
    CHECK(flags.dtype() == DataType::u8);
    CHECK(flags.data<std::uint8_t>()[1] == 0);
    CHECK(flags.data<std::uint8_t>()[2] == 1);
    CHECK(npz.read_tensor("bytes").data<std::uint8_t>()[3] == 3);
    Tensor scalar = npz.read_tensor("scalar");
    CHECK(scalar.rank() == 0);
    CHECK(scalar.data<float>()[0] == 2.5f);
    CHECK(npz.read_tensor("empty").shape() == Shape{0, 3});
    CHECK_THAT(open_and_read_all(test::data_path(file)), Catch::Matchers::Equals(""));
  }
}

TEST_CASE("npz: npy versions 2.0 and 3.0", "[formats]") {
  NpzArchive npz(test::data_path("npz/versions.npz"));
  for (const char* name : {"v2", "v3"}) {
    Tensor t = npz.read_tensor(name);
    REQUIRE(t.shape() == Shape{2, 3, 4});
    CHECK(t.data<float>()[23] == 23 * 0.5f - 3);
  }
}

TEST_CASE("npz: fortran order and big-endian arrays are rejected", "[formats]") {
  for (auto [file, reason] : {std::pair{"npz/fortran.npz", "fortran_order"},
                              std::pair{"npz/bigendian.npz", "big-endian"}}) {
    const std::string path = test::data_path(file);
    const std::string message = open_and_read_all(path);
    CHECK_THAT(message, Contains(path) && Contains("entry 'x'") && Contains(reason));
  }
}

TEST_CASE("npy: tolerant header parsing", "[formats]") {
  const std::vector<float> v = {1, 2, 3};
  auto parse = [&](const std::string& dict) {
    static std::string bytes;
    bytes = npy("", {}, v.data(), 12, dict);
    return parse_npy(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size(), "t.npy");
  };
  CHECK(parse("{'shape': (3,), 'fortran_order': False, 'descr': '<f4'}").shape == Shape{3});
  CHECK(parse("{\"descr\":\"<f4\",\"fortran_order\":False,\"shape\":(3L,)}").shape == Shape{3});
  CHECK(parse("{ 'descr' : '|u1' , 'fortran_order' : False , 'shape' : ( 1 , 12 ) , }").shape ==
        Shape{1, 12});
  CHECK(parse("{'descr': '<f4', 'fortran_order': False, 'shape': ()}").shape == Shape{});
  CHECK(parse("{'descr': '<f4', 'fortran_order': False, 'shape': (0, 99999999999)}").nbytes == 0);

  auto error = [&](const std::string& dict) {
    try {
      parse(dict);
    } catch (const ModelError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  CHECK_THAT(error("{'descr': '<f4', 'fortran_order': False}"), Contains("t.npy: ") && Contains("lacks"));
  CHECK_THAT(error("{'descr': '<f4', 'fortran_order': False, 'shape': (3,), 'x': 1}"),
             Contains("unexpected key 'x'"));
  CHECK_THAT(error("{'descr': '<c8', 'fortran_order': False, 'shape': (3,)}"),
             Contains("unsupported npy element type '<c8'"));
  CHECK_THAT(error("{'descr': '<f4', 'fortran_order': False, 'shape': (4,)}"), Contains("truncated"));
  CHECK_THAT(error("{'descr': '<f4', 'fortran_order': False, 'shape': (3, -1)}"), Contains("malformed"));
  CHECK_THAT(error("{'descr': '<f4', 'fortran_order': True, 'shape': (3,)}"), Contains("fortran_order"));
  // Dimensions whose product overflows 64 bits must be caught, not wrapped around.
  CHECK_THAT(error("{'descr': '<f4', 'fortran_order': False, 'shape': (4294967296, 4294967296, 4)}"),
             Contains("truncated"));
  CHECK_THAT(error("{'descr': '<f4', 'fortran_order': False, 'shape': (99999999999999999999,)}"),
             Contains("too large"));
}

TEST_CASE("npy: half to float for all 65536 inputs", "[formats]") {
  for (std::uint32_t h = 0; h < 65536; ++h) {
    const float got = half_to_float(static_cast<std::uint16_t>(h));
    const float want = half_reference(static_cast<std::uint16_t>(h));
    if (std::isnan(want)) {
      CHECK(std::isnan(got));
    } else if (got != want || std::signbit(got) != std::signbit(want)) {
      FAIL("half 0x" << std::hex << h << ": got " << got << ", want " << want);
    }
  }
}

TEST_CASE("npz: broken files end in a ModelError naming the file", "[formats]") {
  TempDir tmp;
  const std::string good = small_archive(false).finish();

  SECTION("missing, empty, directory, random bytes") {
    const std::string missing = (tmp.dir / "missing.npz").string();
    CHECK_THAT(open_and_read_all(missing), Contains(missing) && Contains("cannot open"));
    const std::string empty = tmp.write("empty.npz", "");
    CHECK_THAT(open_and_read_all(empty), Contains(empty) && Contains("empty file"));
    CHECK_THAT(open_and_read_all(tmp.dir.string()), Contains(tmp.dir.string()));
    std::mt19937 gen(7);
    for (std::size_t n : {1, 21, 22, 100, 5000, 70000}) {
      std::string bytes(n, '\0');
      for (char& c : bytes) c = static_cast<char>(gen());
      const std::string path = tmp.write("random.npz", bytes);
      CHECK_THAT(open_and_read_all(path), Contains(path + ": "));
    }
  }

  SECTION("missing entry") {
    NpzArchive npz(tmp.write("m.npz", good));
    CHECK_THROWS_AS(npz.read("decoder_ff_logit_out_b"), ModelError);
    CHECK_THROWS_WITH(npz.read("nope"), Contains("m.npz: no entry 'nope'"));
    CHECK_THROWS_WITH(npz.read_text("encoder_l1_self_Wq"), Contains("expected int8/uint8 text"));
  }

  SECTION("truncated at every length") {
    for (const std::string& bytes : {good, small_archive(true).finish(),
                                     slurp(test::data_path("npz/savez_compressed.npz"))}) {
      for (std::size_t cut = 0; cut < bytes.size(); ++cut) {
        const std::string path = tmp.write("cut.npz", bytes.substr(0, cut));
        INFO("cut at " << cut);
        CHECK_THAT(open_and_read_all(path), Contains(path + ": "));
      }
    }
  }

  SECTION("middle removed, end record kept") {
    const std::string path = tmp.write("m.npz", good.substr(0, 40) + good.substr(good.size() - 22));
    CHECK_THAT(open_and_read_all(path),
               Contains(path + ": truncated: central directory at offset") &&
                   Contains("extends past the end of the file (size 62)"));
  }

  SECTION("flipped payload byte -> crc mismatch") {
    std::string bytes = good;
    bytes[30 + 22 + 80 + 2] ^= 0x10;  // inside the first float (npy data starts at 80)
    const std::string path = tmp.write("m.npz", bytes);
    CHECK_THAT(open_and_read_all(path),
               Contains(path + ": entry 'encoder_l1_self_Wq': crc mismatch"));
  }

  SECTION("every single flipped byte: success or ModelError, never a crash") {
    for (const std::string& source : {good, slurp(test::data_path("npz/savez_compressed.npz"))}) {
      for (std::size_t i = 0; i < source.size(); ++i) {
        std::string bytes = source;
        bytes[i] ^= 0x5a;
        const std::string path = tmp.write("flip.npz", bytes);
        const std::string message = open_and_read_all(path);
        if (!message.empty()) CHECK_THAT(message, Contains(path + ": "));
      }
    }
  }

  SECTION("a header claiming a huge shape") {
    ZipWriter zip;
    const std::vector<float> v = {1, 2};
    zip.add("big.npy", npy("<f4", {1000000, 1000000}, v.data(), 8));
    const std::string path = tmp.write("big.npz", zip.finish());
    CHECK_THAT(open_and_read_all(path),
               Contains(path + ": entry 'big': truncated: shape [1000000, 1000000]"));
  }

  SECTION("a directory claiming a 1 GB entry in a small file") {
    for (int field : {20, 24}) {  // compressed size, uncompressed size
      std::string bytes = good;
      const std::size_t cd = bytes.size() - 22 - (46 + 22) - (46 + 21);
      REQUIRE(bytes.compare(cd, 4, "PK\x01\x02") == 0);
      for (int k = 0; k < 4; ++k) bytes[cd + field + k] = "\x00\x00\x00\x40"[k];
      const std::string path = tmp.write("huge.npz", bytes);
      CHECK_THAT(open_and_read_all(path), Contains(path + ": ") && Contains("encoder_l1_self_Wq"));
    }
    std::string bytes = slurp(test::data_path("npz/savez_compressed.npz"));
    const std::size_t cd = bytes.rfind("PK\x01\x02");  // last entry: 'empty.npy'
    bytes[cd + 24 + 3] = 0x40;                           // uncompressed size += 1 GiB
    const std::string path = tmp.write("huge.npz", bytes);
    CHECK_THAT(open_and_read_all(path), Contains("more than deflate can produce"));
  }
}
