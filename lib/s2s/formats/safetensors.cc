// .safetensors reading: map the file, bound and parse the JSON header, check every entry and that
// the entries tile the data buffer, then copy (and widen) single tensors on request.
#include "s2s/formats/safetensors.h"


#include <algorithm>
#include <cerrno>
#include <cstring>
#include <limits>
#include <nlohmann/json.hpp>

#include "s2s/core/bfloat16.h"
#include "s2s/core/strings.h"
#include "s2s/formats/npy.h"

namespace s2s::formats {

static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__,
              "the safetensors reader copies little-endian data as it is");

namespace {

using nlohmann::json;

// The reference reader's limit (tensor.rs MAX_HEADER_SIZE); also bounds what the JSON parser sees.
constexpr std::uint64_t kMaxHeader = 100000000;

struct DtypeInfo {
  const char* name;
  std::uint64_t size;
};
// Newer writers also know the sub-byte F4 / F6_* types; their sizes are not whole bytes, and they
// are rejected as unknown.
constexpr DtypeInfo kDtypes[] = {
    {"BOOL", 1},    {"U8", 1},          {"I8", 1},          {"F8_E5M2", 1}, {"F8_E4M3", 1},
    {"F8_E8M0", 1}, {"F8_E4M3FNUZ", 1}, {"F8_E5M2FNUZ", 1}, {"I16", 2},     {"U16", 2},
    {"F16", 2},     {"BF16", 2},        {"I32", 4},         {"U32", 4},     {"F32", 4},
    {"I64", 8},     {"U64", 8},         {"F64", 8},         {"C64", 8},
};

std::uint64_t item_size(const std::string& dtype) {
  for (const DtypeInfo& d : kDtypes)
    if (dtype == d.name) return d.size;
  return 0;
}

std::string known_dtypes() {
  std::vector<std::string> names;
  for (const DtypeInfo& d : kDtypes) names.push_back(d.name);
  return join(names, " ");
}

}  // namespace

SafetensorsFile::SafetensorsFile(const std::string& path)
    : TensorIndex(path, "tensor", "tensors"), file_(path) {
  parse_header();
}

void SafetensorsFile::parse_header() {
  const std::uint64_t n = header_length();
  data_start_ = 8 + n;
  const std::uint64_t buffer = file_.size() - data_start_;
  const json header = header_json(n);
  for (const auto& [key, value] : header.items()) {
    if (key == "__metadata__")
      read_metadata(value);
    else
      entries_.push_back(read_entry(key, value, buffer));
  }
  index_tiled_entries(buffer);
}

// The 8-byte little-endian length N of the JSON header that follows it.
std::uint64_t SafetensorsFile::header_length() const {
  const std::uint64_t size = file_.size();
  if (size < 8)
    fail("truncated: " + std::to_string(size) +
         " bytes, a safetensors file starts with an 8-byte header length");
  std::uint64_t n = 0;
  for (int i = 0; i < 8; ++i) n |= static_cast<std::uint64_t>(file_.data()[i]) << (8 * i);
  if (n > kMaxHeader)
    fail("header length " + std::to_string(n) +
         " is more than the 100000000 bytes allowed; "
         "not a safetensors file, or corrupt");
  if (n > size - 8)
    fail("truncated: header of " + std::to_string(n) + " bytes claimed, " +
         std::to_string(size - 8) + " left");
  return n;
}

json SafetensorsFile::header_json(std::uint64_t n) const {
  const char* text = reinterpret_cast<const char*>(file_.data() + 8);
  // nlohmann stops at a NUL as if the input ended there, so the bytes after one would go unchecked;
  // raw NULs are never valid JSON (the reference rejects them).
  if (const void* nul = std::memchr(text, '\0', n))
    fail("header is not valid JSON: NUL byte at header offset " +
         std::to_string(static_cast<const char*>(nul) - text));
  json header;
  try {
    header = json::parse(text, text + n);
  } catch (const json::exception& e) {
    fail(std::string("header is not valid JSON: ") + e.what());
  }
  if (!header.is_object()) fail("header is not a JSON object");
  return header;
}

void SafetensorsFile::read_metadata(const json& value) {
  if (!value.is_object()) fail("__metadata__ is not a JSON object");
  for (const auto& [k, v] : value.items()) {
    if (!v.is_string()) fail("__metadata__ value of '" + k + "' is not a string");
    metadata_[k] = v.get<std::string>();
  }
}

// Offsets and dimensions must be JSON unsigned integers (the reference reads them as usize).
std::uint64_t SafetensorsFile::unsigned_of(const json& v, const std::string& what) const {
  if (!v.is_number_unsigned()) fail(what + " is not a non-negative integer: " + v.dump());
  return v.get<std::uint64_t>();
}

// One tensor's header entry, checked against the `buffer` bytes of data.
SafetensorsFile::Entry SafetensorsFile::read_entry(const std::string& key, const json& value,
                                                   std::uint64_t buffer) const {
  const std::string what = "tensor '" + key + "'";
  if (!value.is_object()) fail(what + ": entry is not a JSON object");
  const auto dtype = value.find("dtype");
  const auto shape = value.find("shape");
  const auto offsets = value.find("data_offsets");
  if (dtype == value.end() || shape == value.end() || offsets == value.end())
    fail(what + ": entry lacks one of 'dtype', 'shape', 'data_offsets'");
  if (!dtype->is_string()) fail(what + ": dtype is not a string");
  if (!shape->is_array()) fail(what + ": shape is not an array");
  if (!offsets->is_array() || offsets->size() != 2)
    fail(what + ": data_offsets is not an array [begin, end]");

  Entry e;
  e.name = key;
  e.dtype = dtype->get<std::string>();
  const std::uint64_t nbytes = read_shape(*shape, what, e);
  e.begin = unsigned_of((*offsets)[0], what + ": data_offsets begin");
  e.end = unsigned_of((*offsets)[1], what + ": data_offsets end");
  if (e.begin > e.end || e.end > buffer)
    fail(what + ": data_offsets [" + std::to_string(e.begin) + ", " + std::to_string(e.end) +
         "] do not fit in the " + std::to_string(buffer) + "-byte data buffer");
  if (e.end - e.begin != nbytes)
    fail(what + ": shape " + to_string(e.shape) + " of " + e.dtype + " needs " +
         std::to_string(nbytes) + " bytes, data_offsets give " + std::to_string(e.end - e.begin));
  return e;
}

// Sets e.shape from `shape`; returns the bytes it needs in e.dtype.
std::uint64_t SafetensorsFile::read_shape(const json& shape, const std::string& what,
                                          Entry& e) const {
  const std::uint64_t item = item_size(e.dtype);
  if (item == 0) fail(what + ": unknown dtype '" + e.dtype + "' (known: " + known_dtypes() + ")");
  std::vector<std::uint64_t> dims;
  for (const json& d : shape) {
    dims.push_back(unsigned_of(d, what + ": dimension"));
    e.shape.push_back(dims.back() > static_cast<std::uint64_t>(std::numeric_limits<dim_t>::max())
                          ? std::numeric_limits<dim_t>::max()
                          : static_cast<dim_t>(dims.back()));
  }
  const std::optional<std::uint64_t> nbytes = tensor_bytes(dims, item);
  if (!nbytes) fail(what + ": shape " + shape.dump() + " is too large");
  return *nbytes;
}

// The reference sorts by (begin, end) and requires the entries to tile the buffer exactly.
void SafetensorsFile::index_tiled_entries(std::uint64_t buffer) {
  std::sort(entries_.begin(), entries_.end(), [](const Entry& a, const Entry& b) {
    return a.begin != b.begin ? a.begin < b.begin : a.end < b.end;
  });
  std::uint64_t at = 0;
  for (std::size_t i = 0; i < entries_.size(); ++i) {
    const Entry& e = entries_[i];
    if (e.begin != at) {
      const std::string previous = i == 0
                                       ? "the data buffer starts"
                                       : "the previous tensor '" + entries_[i - 1].name + "' ends";
      fail("tensor '" + e.name + "' starts at byte " + std::to_string(e.begin) + ", but " +
           previous + " at byte " + std::to_string(at) +
           (e.begin > at ? " (a gap)" : " (overlap)"));
    }
    at = e.end;
    add(e.name, "tensor");
  }
  if (at != buffer)
    fail("tensors end at byte " + std::to_string(at) + " of the data buffer, but it has " +
         std::to_string(buffer) + " bytes (truncated, or data not described by the header)");
}

const SafetensorsFile::Entry& SafetensorsFile::find(const std::string& name) const {
  return entries_[position(name)];
}

const Shape& SafetensorsFile::shape(const std::string& name) const { return find(name).shape; }

const std::string& SafetensorsFile::dtype_name(const std::string& name) const {
  return find(name).dtype;
}

Tensor SafetensorsFile::read_tensor(const std::string& name) const {
  const Entry& e = find(name);
  const std::uint8_t* src = file_.data() + data_start_ + e.begin;
  const std::size_t nbytes = e.end - e.begin;
  const DropPagesOnReturn drop{file_, data_start_ + e.begin, nbytes};  // copied below
  if (e.dtype == "F32" || e.dtype == "I32" || e.dtype == "I64") {
    const DataType type = e.dtype == "F32"   ? DataType::f32
                          : e.dtype == "I32" ? DataType::i32
                                             : DataType::i64;
    Tensor t(e.shape, type);
    if (nbytes) std::memcpy(t.raw(), src, nbytes);
    return t;
  }
  if (e.dtype == "F16" || e.dtype == "BF16") {
    Tensor t(e.shape, DataType::f32);
    float* out = t.data<float>();
    const bool bf16 = e.dtype == "BF16";
    for (std::size_t i = 0; i < nbytes / 2; ++i) {
      std::uint16_t h;
      std::memcpy(&h, src + 2 * i, 2);  // the data may be unaligned
      out[i] = bf16 ? bf16_to_float(h) : half_to_float(h);
    }
    return t;
  }
  fail("tensor '" + name + "' has dtype " + e.dtype +
       ", which s2s cannot read (supported: F32, F16, BF16, I32, I64)");
}

}  // namespace s2s::formats
