// .npz reading: map the file, find the end of central directory (zip64 when saturated), index the
// entries, and on read() inflate if needed, verify the CRC and hand the bytes to the npy parser.
#include "s2s/formats/npz.h"

#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>

#include "s2s/formats/npy.h"

namespace s2s::formats {

namespace {

constexpr std::uint32_t kLocalSig = 0x04034b50;
constexpr std::uint32_t kCentralSig = 0x02014b50;
constexpr std::uint32_t kEndSig = 0x06054b50;
constexpr std::uint32_t kZip64EndSig = 0x06064b50;
constexpr std::uint32_t kZip64LocatorSig = 0x07064b50;
constexpr std::uint64_t kEndSize = 22, kCentralSize = 46, kLocalSize = 30;
constexpr std::uint64_t kZip64LocatorSize = 20, kZip64EndSize = 56;
// Deflate cannot expand by more than 1032:1 (a 258-byte match costs at least 2 bits), so a larger
// claimed uncompressed size is a corrupt header, and is rejected before allocating it.
constexpr std::uint64_t kMaxDeflateRatio = 1032;
// zlib counts in uInt; large buffers are fed in pieces of this size.
constexpr std::uint64_t kZlibChunk = 1u << 30;

std::uint64_t le(const std::uint8_t* p, int bytes) {
  std::uint64_t v = 0;
  for (int i = 0; i < bytes; ++i) v |= static_cast<std::uint64_t>(p[i]) << (8 * i);
  return v;
}

std::string hex(std::uint32_t v) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "0x%08x", v);
  return buf;
}

std::uint32_t crc32_of(const std::uint8_t* data, std::uint64_t size) {
  uLong crc = crc32(0L, Z_NULL, 0);
  while (size > 0) {
    const std::uint64_t n = std::min(size, kZlibChunk);
    crc = crc32(crc, data, static_cast<uInt>(n));
    data += n;
    size -= n;
  }
  return static_cast<std::uint32_t>(crc);
}

}  // namespace

NpzArchive::NpzArchive(const std::string& path)
    : TensorIndex(path, "entry", "entries"), file_(path) {
  read_directory();
}

void NpzArchive::read_directory() {
  const Directory directory = find_directory();
  entries_.reserve(std::min<std::uint64_t>(directory.count, directory.size / kCentralSize));
  std::uint64_t p = directory.offset;
  for (std::uint64_t i = 0; i < directory.count; ++i) p += read_central_record(directory, i, p);
}

// The end record (and the zip64 one when a field of it is saturated): where the central
// directory is and how many entries it holds.
NpzArchive::Directory NpzArchive::find_directory() const {
  const std::uint8_t* base = file_.data();
  const std::uint64_t size = file_.size();
  if (size == 0) fail("empty file (0 bytes), not an npz archive");
  if (size < kEndSize)
    fail("not an npz archive: " + std::to_string(size) + " bytes is too short for a zip file");

  // The end record is followed only by its comment; take the last signature whose comment fits.
  std::uint64_t end = size;  // position of the end record; `size` means not found
  const std::uint64_t lowest = size - kEndSize > 65535 ? size - kEndSize - 65535 : 0;
  for (std::uint64_t pos = size - kEndSize + 1; pos-- > lowest;) {
    if (le(base + pos, 4) == kEndSig && pos + kEndSize + le(base + pos + 20, 2) <= size) {
      end = pos;
      break;
    }
  }
  if (end == size)
    fail("not an npz archive, or truncated: no zip end-of-central-directory record in the last " +
         std::to_string(size - lowest) + " bytes");
  Directory d{le(base + end + 10, 2), le(base + end + 12, 4), le(base + end + 16, 4)};
  if (d.count == 0xffff || d.size == 0xffffffff || d.offset == 0xffffffff) {
    const std::uint64_t loc = end >= kZip64LocatorSize ? end - kZip64LocatorSize : size;
    if (loc == size || le(base + loc, 4) != kZip64LocatorSig)
      fail(
          "end-of-central-directory fields are saturated but there is no zip64 locator before "
          "offset " +
          std::to_string(end));
    const std::uint64_t rec = le(base + loc + 8, 8);
    if (rec > loc || loc - rec < kZip64EndSize || le(base + rec, 4) != kZip64EndSig)
      fail("zip64 end-of-central-directory record at offset " + std::to_string(rec) +
           " is missing or corrupt");
    d = {le(base + rec + 32, 8), le(base + rec + 40, 8), le(base + rec + 48, 8)};
  }
  if (d.offset > size || d.size > size - d.offset)
    fail("truncated: central directory at offset " + std::to_string(d.offset) + " (" +
         std::to_string(d.size) + " bytes) extends past the end of the file (size " +
         std::to_string(size) + ")");
  return d;
}

// Central directory record `i`, at offset `p`: its entry checked and indexed. Returns the
// record's size.
std::uint64_t NpzArchive::read_central_record(const Directory& directory, std::uint64_t i,
                                              std::uint64_t p) {
  const std::uint8_t* base = file_.data();
  const std::uint64_t cd_end = directory.offset + directory.size;
  const std::string where =
      "central directory record " + std::to_string(i) + " at offset " + std::to_string(p);
  if (cd_end - p < kCentralSize || le(base + p, 4) != kCentralSig)
    fail(where + " is truncated or corrupt (the directory claims " +
         std::to_string(directory.count) + " entries in " + std::to_string(directory.size) +
         " bytes)");
  const std::uint8_t* r = base + p;
  const std::uint64_t flags = le(r + 8, 2), name_len = le(r + 28, 2), extra_len = le(r + 30, 2);
  const std::uint64_t record_size = kCentralSize + name_len + extra_len + le(r + 32, 2);
  if (cd_end - p < record_size) fail(where + " extends past the central directory");
  Entry e;
  const std::string stored_name(reinterpret_cast<const char*>(r + kCentralSize), name_len);
  e.method = static_cast<std::uint16_t>(le(r + 10, 2));
  e.crc = static_cast<std::uint32_t>(le(r + 16, 4));
  e.compressed = le(r + 20, 4);
  e.uncompressed = le(r + 24, 4);
  std::uint64_t local = le(r + 42, 4);
  const std::string entry = "entry '" + stored_name + "'";
  read_zip64_extra(r + kCentralSize + name_len, extra_len, entry, e, local);
  if (flags & 1) fail(entry + ": encrypted entries are not supported");
  check_sizes(e, entry);
  e.data_offset = data_offset(local, e.compressed, entry);

  std::string name = stored_name;
  if (name.size() >= 4 && name.compare(name.size() - 4, 4, ".npy") == 0)
    name.resize(name.size() - 4);
  add(std::move(name), "entry");
  entries_.push_back(e);
  return record_size;
}

// Zip64 extra field: only the saturated values, in the order uncompressed, compressed, offset.
void NpzArchive::read_zip64_extra(const std::uint8_t* extra, std::uint64_t extra_len,
                                  const std::string& entry, Entry& e,
                                  std::uint64_t& local) const {
  const bool need64[3] = {e.uncompressed == 0xffffffff, e.compressed == 0xffffffff,
                          local == 0xffffffff};
  std::uint64_t* targets[3] = {&e.uncompressed, &e.compressed, &local};
  bool found64 = false;
  for (std::uint64_t x = 0; x + 4 <= extra_len;) {
    const std::uint8_t* f = extra + x;
    const std::uint64_t id = le(f, 2), len = le(f + 2, 2);
    if (x + 4 + len > extra_len) fail(entry + ": extra field overruns its record");
    if (id == 0x0001) {
      std::uint64_t at = 0;
      for (int k = 0; k < 3; ++k) {
        if (!need64[k]) continue;
        if (at + 8 > len) fail(entry + ": zip64 extra field is too short");
        *targets[k] = le(f + 4 + at, 8);
        at += 8;
      }
      found64 = true;
    }
    x += 4 + len;
  }
  if ((need64[0] || need64[1] || need64[2]) && !found64)
    fail(entry + ": saturated sizes but no zip64 extra field");
}

// The method and sizes an entry claims, before anything is allocated for it.
void NpzArchive::check_sizes(const Entry& e, const std::string& entry) const {
  if (e.method != 0 && e.method != 8)
    fail(entry + ": compression method " + std::to_string(e.method) +
         " is not supported (only 0 stored and 8 deflate)");
  if (e.method == 0 && e.compressed != e.uncompressed)
    fail(entry + ": stored entry with compressed size " + std::to_string(e.compressed) +
         " != uncompressed size " + std::to_string(e.uncompressed));
  if (e.method == 8 && e.uncompressed / kMaxDeflateRatio > e.compressed)
    fail(entry + ": claims " + std::to_string(e.uncompressed) + " bytes inflated from " +
         std::to_string(e.compressed) + ", more than deflate can produce");
}

// Where the data of the entry whose local header is at `local` starts: only the header's name
// and extra lengths are used.
std::uint64_t NpzArchive::data_offset(std::uint64_t local, std::uint64_t compressed,
                                      const std::string& entry) const {
  const std::uint8_t* base = file_.data();
  const std::uint64_t size = file_.size();
  if (local > size || size - local < kLocalSize || le(base + local, 4) != kLocalSig)
    fail("truncated or corrupt: " + entry + ": no local header at offset " +
         std::to_string(local) + " (file size " + std::to_string(size) + ")");
  const std::uint64_t offset = local + kLocalSize + le(base + local + 26, 2) +
                               le(base + local + 28, 2);
  if (offset > size || compressed > size - offset)
    fail("truncated: " + entry + ": data at offset " + std::to_string(offset) + " (" +
         std::to_string(compressed) + " bytes) extends past the end of the file (size " +
         std::to_string(size) + ")");
  return offset;
}

const NpzArchive::Entry& NpzArchive::find(const std::string& name) const {
  return entries_[position(name)];
}

NpyArray NpzArchive::read(const std::string& name) const {
  const Entry& e = find(name);
  const std::string what = path() + ": entry '" + name + "'";
  const std::uint8_t* src = file_.data() + e.data_offset;
  const DropPagesOnReturn drop{file_, e.data_offset, e.compressed};  // copied or inflated below
  std::vector<std::uint8_t> inflated;
  const std::uint8_t* bytes = src;
  if (e.method == 8) {
    // Size checked against the deflate ratio at open, so this allocation is bounded by the file.
    inflated.resize(std::max<std::uint64_t>(e.uncompressed, 1));
    z_stream zs{};
    if (inflateInit2(&zs, -15) != Z_OK) throw ModelError(what + ": cannot initialise zlib");
    struct Guard {
      z_stream* z;
      ~Guard() { inflateEnd(z); }
    } guard{&zs};
    std::uint64_t in_left = e.compressed, out_left = e.uncompressed;
    zs.next_in = const_cast<Bytef*>(src);
    zs.next_out = inflated.data();
    for (;;) {
      if (zs.avail_in == 0 && in_left > 0) {
        zs.avail_in = static_cast<uInt>(std::min(in_left, kZlibChunk));
        in_left -= zs.avail_in;
      }
      if (zs.avail_out == 0 && out_left > 0) {
        zs.avail_out = static_cast<uInt>(std::min(out_left, kZlibChunk));
        out_left -= zs.avail_out;
      }
      const int rc = inflate(&zs, Z_NO_FLUSH);
      if (rc == Z_STREAM_END) break;
      if (rc == Z_OK) continue;
      if (rc == Z_BUF_ERROR && zs.avail_out == 0 && out_left == 0)
        throw ModelError(what + ": inflates to more than the " + std::to_string(e.uncompressed) +
                          " bytes the directory records");
      if (rc == Z_BUF_ERROR) throw ModelError(what + ": truncated deflate data");
      throw ModelError(what + ": corrupt deflate data (" + (zs.msg ? zs.msg : "zlib error") + ")");
    }
    if (zs.total_out != e.uncompressed)
      throw ModelError(what + ": inflates to " + std::to_string(zs.total_out) +
                        " bytes, the directory records " + std::to_string(e.uncompressed));
    bytes = inflated.data();
  }
  const std::uint32_t crc = crc32_of(bytes, e.uncompressed);
  if (crc != e.crc)
    throw ModelError(what + ": crc mismatch (directory " + hex(e.crc) + ", data " + hex(crc) +
                      "); the file is corrupt");

  const NpyView view = parse_npy(bytes, e.uncompressed, what);
  NpyArray out;
  out.tensor = to_tensor(view);
  out.descr = view.descr;
  out.file_dtype = view.dtype;
  return out;
}

Tensor NpzArchive::read_tensor(const std::string& name) const { return read(name).tensor; }

std::string NpzArchive::read_text(const std::string& name) const {
  NpyArray a = read(name);
  if (a.file_dtype != DataType::i8 && a.file_dtype != DataType::u8)
    fail("entry '" + name + "' holds " + dtype_name(a.file_dtype) + ", expected int8/uint8 text");
  const char* text = static_cast<const char*>(a.tensor.raw());
  const std::size_t n = a.tensor.nbytes();
  return std::string(text, std::find(text, text + n, '\0'));
}

}  // namespace s2s::formats
