// Reader for one NumPy .npy array held in memory (an entry of an .npz archive, see npz.h).
//
// Layout (numpy/lib/format.py; integers little-endian):
//   6 bytes   magic "\x93NUMPY"
//   1 byte    major version (1, 2 or 3)          1 byte minor version (0)
//   v1.0:     u16 header_len                     v2.0 / v3.0: u32 header_len
//   header:   header_len bytes of a Python dict literal, for example
//               {'descr': '<f4', 'fortran_order': False, 'shape': (512, 2048), }
//             padded with spaces and ending in '\n'. numpy pads to 64 bytes and Marian's cnpy to 16;
//             neither is assumed. Keys may come in any order, spaces are optional, 1-D shapes are
//             written (512,), scalars (), and Python 2 wrote longs as (512L,).
//   payload:  prod(shape) * itemsize bytes in C order (shape () holds one element). Bytes after
//             the payload are ignored, as numpy and Marian do.
// Supported descr: <f4 <f2 <i4 <i8, <i1 |i1, <u1 |u1, |b1 (bool is read as u8). Big-endian
// multi-byte types, structured types and fortran_order True are rejected with a ModelError.
//
// Usage:
//   NpyView v = parse_npy(bytes, size, "model.npz: entry 'Wemb'");
//   Tensor t = to_tensor(v);   // owned copy; f16 becomes f32
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "s2s/core/tensor.h"

namespace s2s::formats {

struct NpyView {
  std::string descr;                   // as written in the header, e.g. "<f4"
  DataType dtype = DataType::f32;      // payload element type: f16 for "<f2", u8 for "|b1"
  Shape shape;
  const std::uint8_t* data = nullptr;  // payload, inside the buffer given to parse_npy
  std::size_t nbytes = 0;              // prod(shape) * dtype_size(dtype), checked against the buffer
};

// Parses a complete .npy buffer. Every error is a ModelError whose message starts with `what`
// (the file, and the entry name inside an archive).
NpyView parse_npy(const std::uint8_t* data, std::size_t size, const std::string& what);

// Copies the payload into an owned, contiguous tensor; f16 payloads are widened to f32.
Tensor to_tensor(const NpyView& view);

// IEEE 754 binary16 -> binary32. Exact for every input: subnormals, infinities, NaN payloads.
float half_to_float(std::uint16_t bits);

}  // namespace s2s::formats
