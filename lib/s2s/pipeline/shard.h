// Shards of a line-oriented file (`--shard K/N`): shard k of n holds the lines whose first byte
// lies in [k*size/n, (k+1)*size/n), so that each cut moves forward to the next line start.
// The shards are contiguous byte ranges, in order, that cover the file: concatenating what each
// shard's lines give equals what the whole file gives, line for line. A shard reads only the
// file up to its end: the prefix before it once, in large blocks, to count its newlines (a
// shard's line numbers are those of the whole file), then its own bytes.
//
// Usage:
//   const Shard shard = parse_shard("3/16");            // UsageError when malformed
//   const ShardRange range = seek_to_shard(fd, shard);  // fd now at range.begin
//   LineReader reader(fd, &stop, range.end - range.begin);
//   // the reader's first line is line range.first_line of the file
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "s2s/pipeline/windows.h"

namespace s2s::pipeline {

struct Shard {
  std::size_t index = 0;  // K, 0-based
  std::size_t count = 1;  // N
  bool whole() const { return count == 1; }
};

// "K/N" with 0 <= K < N; UsageError naming `flag` ("--shard") when malformed or out of range.
Shard parse_shard(const std::string& text, const std::string& flag = "--shard");

// "00003-of-00016": the shard's part of an output file name (at least 5 digits each).
std::string shard_label(const Shard& shard);

struct ShardRange {
  std::uint64_t begin = 0;     // a line start (or the file's size)
  std::uint64_t end = 0;       // the next shard's begin (the file's size for the last one)
  std::size_t first_line = 1;  // 1-based number, in the whole file, of the line at begin
  std::size_t lines_before() const { return first_line - 1; }
};

// The byte range of `shard` in the regular file open as `fd` (read with pread: the descriptor's
// position is not used). Lines are split on '\n' as LineReader splits them. An empty shard
// (more shards than lines) has begin == end. InputError when the file cannot be read;
// UsageError when fd is not a regular file (a pipe cannot be sharded).
// With `windows` (translate: pipeline/windows.h), each cut then moves on to the window boundary
// nearest to its line, so that every shard cuts the same windows as one whole run and writes the
// same bytes (a shard is then empty when the file has fewer windows than shards).
ShardRange shard_range(int fd, const Shard& shard, const std::string& name,
                       const WindowSchedule* windows = nullptr);

// shard_range, then moves fd's position to the range's begin.
ShardRange seek_to_shard(int fd, const Shard& shard, const std::string& name,
                         const WindowSchedule* windows = nullptr);

// Moves fd (a regular file, read from its start) to where 1-based line `line` starts, reading
// the bytes before it in large blocks; returns false (fd at the end) when the file has fewer
// lines. Line 1 always starts at 0.
bool seek_to_line(int fd, std::size_t line, const std::string& name);

}  // namespace s2s::pipeline
