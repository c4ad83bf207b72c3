// .npy parsing: magic and version, the header dict (a tiny Python-literal reader), and the payload
// size check that must come before any use of the shape.
#include "s2s/formats/npy.h"

#include <cmath>
#include <cstring>
#include <limits>

namespace s2s::formats {

static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__,
              "the npy reader copies little-endian payloads as they are");

namespace {

constexpr char kMagic[] = "\x93NUMPY";
constexpr std::size_t kMagicSize = 6;

[[noreturn]] void fail(const std::string& what, const std::string& message) {
  throw ModelError(what + ": " + message);
}

// Reads the header dict `{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }`.
class HeaderParser {
 public:
  HeaderParser(const std::string& text, const std::string& what) : s_(text), what_(what) {}

  void parse(std::string& descr, bool& fortran_order, Shape& shape) {
    bool has_descr = false, has_order = false, has_shape = false;
    expect('{');
    while (true) {
      skip_space();
      if (peek() == '}') break;
      const std::string key = string_literal();
      expect(':');
      if (key == "descr") {
        descr = string_literal();
        has_descr = true;
      } else if (key == "fortran_order") {
        fortran_order = boolean();
        has_order = true;
      } else if (key == "shape") {
        shape = tuple();
        has_shape = true;
      } else {
        fail(what_, "npy header has an unexpected key '" + key + "' (header: " + s_ + ")");
      }
      skip_space();
      if (peek() == ',') {
        ++pos_;
        continue;
      }
      if (peek() != '}') error("expected ',' or '}'");
    }
    ++pos_;
    skip_space();
    if (pos_ != s_.size()) error("unexpected text after the closing '}'");
    if (!has_descr || !has_order || !has_shape)
      fail(what_, "npy header lacks one of 'descr', 'fortran_order', 'shape' (header: " + s_ + ")");
  }

 private:
  char peek() const { return pos_ < s_.size() ? s_[pos_] : '\0'; }
  void skip_space() {
    while (pos_ < s_.size() && (s_[pos_] == ' ' || s_[pos_] == '\t' || s_[pos_] == '\n' ||
                                s_[pos_] == '\r'))
      ++pos_;
  }
  [[noreturn]] void error(const std::string& message) const {
    fail(what_, "malformed npy header at character " + std::to_string(pos_) + ": " + message +
                    " (header: " + s_ + ")");
  }
  void expect(char c) {
    skip_space();
    if (peek() != c) error(std::string("expected '") + c + "'");
    ++pos_;
  }
  std::string string_literal() {
    skip_space();
    const char quote = peek();
    if (quote != '\'' && quote != '"') error("expected a quoted string");
    const std::size_t end = s_.find(quote, pos_ + 1);
    if (end == std::string::npos) error("unterminated string");
    std::string value = s_.substr(pos_ + 1, end - pos_ - 1);
    pos_ = end + 1;
    return value;
  }
  bool boolean() {
    skip_space();
    if (s_.compare(pos_, 4, "True") == 0) {
      pos_ += 4;
      return true;
    }
    if (s_.compare(pos_, 5, "False") == 0) {
      pos_ += 5;
      return false;
    }
    error("expected True or False");
  }
  // "(512, 2048)", "(512,)", "()", Python 2's "(512L,)".
  Shape tuple() {
    Shape shape;
    expect('(');
    while (true) {
      skip_space();
      if (peek() == ')') break;
      if (peek() < '0' || peek() > '9') error("expected a non-negative integer dimension");
      dim_t d = 0;
      while (peek() >= '0' && peek() <= '9') {
        // Cap far below overflow; the payload check rejects anything this large anyway.
        if (d > (std::numeric_limits<dim_t>::max() - 9) / 10) error("dimension too large");
        d = d * 10 + (peek() - '0');
        ++pos_;
      }
      if (peek() == 'L') ++pos_;
      shape.push_back(d);
      skip_space();
      if (peek() == ',') {
        ++pos_;
        continue;
      }
      if (peek() != ')') error("expected ',' or ')' in shape");
    }
    ++pos_;
    return shape;
  }

  const std::string& s_;
  const std::string& what_;
  std::size_t pos_ = 0;
};

// Maps a descr to an element type; byte order '<' or '|' ('>' only for one-byte types).
DataType parse_descr(const std::string& descr, const std::string& what) {
  if (descr.size() == 3) {
    const char order = descr[0];
    const std::string type = descr.substr(1);
    DataType dtype;
    bool known = true;
    if (type == "f4") dtype = DataType::f32;
    else if (type == "f2") dtype = DataType::f16;
    else if (type == "i4") dtype = DataType::i32;
    else if (type == "i8") dtype = DataType::i64;
    else if (type == "i1") dtype = DataType::i8;
    else if (type == "u1" || type == "b1") dtype = DataType::u8;
    else known = false;
    if (known) {
      const bool one_byte = dtype_size(dtype) == 1;
      if (order == '<' || order == '|' || (one_byte && order == '>')) return dtype;
      if (order == '>')
        fail(what, "big-endian array (descr '" + descr +
                       "') is not supported; re-save it little-endian (numpy: a.astype('<" + type +
                       "'))");
    }
  }
  fail(what, "unsupported npy element type '" + descr +
                 "' (supported: <f4 <f2 <i4 <i8 |i1 |u1 |b1)");
}

}  // namespace

NpyView parse_npy(const std::uint8_t* data, std::size_t size, const std::string& what) {
  if (size < kMagicSize + 2 || std::memcmp(data, kMagic, kMagicSize) != 0)
    fail(what, "not an npy array (missing the \\x93NUMPY magic)");
  const int major = data[6];
  const int minor = data[7];
  if ((major != 1 && major != 2 && major != 3) || minor != 0)
    fail(what, "unsupported npy version " + std::to_string(major) + "." + std::to_string(minor) +
                   " (supported: 1.0, 2.0, 3.0)");
  const std::size_t len_bytes = major == 1 ? 2 : 4;
  const std::size_t prefix = kMagicSize + 2 + len_bytes;
  if (size < prefix) fail(what, "truncated npy header");
  std::size_t header_len = 0;
  for (std::size_t i = 0; i < len_bytes; ++i)
    header_len |= static_cast<std::size_t>(data[8 + i]) << (8 * i);
  if (header_len > size - prefix)
    fail(what, "truncated: npy header of " + std::to_string(header_len) + " bytes, only " +
                   std::to_string(size - prefix) + " bytes follow");
  const std::string header(reinterpret_cast<const char*>(data + prefix), header_len);

  NpyView view;
  bool fortran_order = false;
  HeaderParser(header, what).parse(view.descr, fortran_order, view.shape);
  view.dtype = parse_descr(view.descr, what);
  if (fortran_order)
    fail(what, "fortran_order arrays are not supported (Marian rejects them too); re-save with "
               "np.ascontiguousarray");

  // prod(shape) * itemsize must fit in what follows the header; checked by division so that a
  // header claiming a huge shape can neither overflow nor cause an allocation.
  const std::size_t available = size - prefix - header_len;
  const std::size_t item = dtype_size(view.dtype);
  const std::size_t capacity = available / item;  // elements that fit
  bool empty = false, fits = true;
  std::uint64_t nonzero = 1;  // product of the non-zero dimensions, while it fits in int64
  for (dim_t d : view.shape) {
    if (d == 0)
      empty = true;
    else if (fits && (__builtin_mul_overflow(nonzero, static_cast<std::uint64_t>(d), &nonzero) ||
                      nonzero > static_cast<std::uint64_t>(std::numeric_limits<dim_t>::max())))
      fits = false;
  }
  // An empty array needs no payload, but its strides are that product: (0, 2**62, 4) would
  // overflow them (found by tools/fuzz).
  if (empty && !fits)
    fail(what, "shape " + to_string(view.shape) + " is too large (its strides overflow 64 bits)");
  const std::size_t count = empty ? 0 : static_cast<std::size_t>(nonzero);
  if (!fits || count > capacity)
    fail(what, "truncated: shape " + to_string(view.shape) + " of " + dtype_name(view.dtype) +
                   " needs more than the " + std::to_string(available) +
                   " payload bytes present");
  view.data = data + prefix + header_len;
  view.nbytes = count * item;
  return view;
}

float half_to_float(std::uint16_t bits) {
  const std::uint32_t sign = static_cast<std::uint32_t>(bits & 0x8000u) << 16;
  const std::uint32_t exponent = (bits >> 10) & 0x1fu;
  const std::uint32_t mantissa = bits & 0x3ffu;
  std::uint32_t out;
  if (exponent == 0x1f) {
    out = sign | 0x7f800000u | (mantissa << 13);  // inf, or NaN keeping its payload
  } else if (exponent == 0) {
    // Zero or subnormal: mantissa * 2^-24 is exact in binary32.
    const float magnitude = std::ldexp(static_cast<float>(mantissa), -24);
    return sign ? -magnitude : magnitude;
  } else {
    out = sign | ((exponent + (127 - 15)) << 23) | (mantissa << 13);
  }
  float f;
  std::memcpy(&f, &out, sizeof f);
  return f;
}

Tensor to_tensor(const NpyView& view) {
  if (view.dtype == DataType::f16) {
    Tensor t(view.shape, DataType::f32);
    float* out = t.data<float>();
    const std::size_t n = view.nbytes / 2;
    for (std::size_t i = 0; i < n; ++i) {
      std::uint16_t h;
      std::memcpy(&h, view.data + 2 * i, 2);  // the payload may be unaligned
      out[i] = half_to_float(h);
    }
    return t;
  }
  Tensor t(view.shape, view.dtype);
  if (view.nbytes) std::memcpy(t.raw(), view.data, view.nbytes);
  return t;
}

}  // namespace s2s::formats
