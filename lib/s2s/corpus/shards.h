// A run's shard (translate and score, --shard K/N): its checks, and where its output goes. The
// shard's byte range and line numbers are s2s/pipeline/shard.h's.
#pragma once

#include <optional>
#include <string>

#include "s2s/pipeline/shard.h"

namespace s2s::corpus {

// The shard given (nullopt when `text` is empty). UsageError when it is malformed or out of
// range, or when `input` (the file to shard) is standard input ("-" or ""): a shard seeks to its
// part of a file.
std::optional<pipeline::Shard> given_shard(const std::string& text, const std::string& input,
                                           const char* input_flag);

// Where shard `shard` of `input` is written, given -o `output`: "{shard}" in it replaced by
// "00003-of-00016"; else, when it is an existing folder, "<folder>/<input's file
// name>.00003-of-00016"; else `output` itself ("-" stays standard output).
std::string shard_output(const std::string& output, const std::string& input,
                         const pipeline::Shard& shard);

}  // namespace s2s::corpus
