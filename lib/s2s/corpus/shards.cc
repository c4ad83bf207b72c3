#include "s2s/corpus/shards.h"

#include <filesystem>
#include <system_error>

#include "s2s/core/error.h"

namespace s2s::corpus {

std::optional<pipeline::Shard> given_shard(const std::string& text, const std::string& input,
                                           const char* input_flag) {
  if (text.empty()) return std::nullopt;
  const pipeline::Shard shard = pipeline::parse_shard(text);
  if (input.empty() || input == "-")
    throw UsageError("--shard " + text + " needs " + input_flag +
                     " (standard input cannot be sharded: a shard seeks to its part of a file)");
  return shard;
}

std::string shard_output(const std::string& output, const std::string& input,
                         const pipeline::Shard& shard) {
  const std::string label = pipeline::shard_label(shard);
  const std::string placeholder = "{shard}";
  std::string path = output;
  if (path.find(placeholder) != std::string::npos) {
    for (std::size_t at; (at = path.find(placeholder)) != std::string::npos;)
      path.replace(at, placeholder.size(), label);
    return path;
  }
  std::error_code ec;
  if (output != "-" && std::filesystem::is_directory(output, ec))
    return (std::filesystem::path(output) /
            (std::filesystem::path(input).filename().string() + "." + label))
        .string();
  return output;
}

}  // namespace s2s::corpus
