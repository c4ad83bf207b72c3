#include "shard_output.h"

#include <filesystem>
#include <system_error>

#include "s2s/core/error.h"

namespace s2s::app {

void add_shard_flag(CLI::App& cmd, std::string& text) {
  cmd.add_option("--shard", text,
                 "Only shard K (0-based) of N of the input file (-i FILE, not stdin): the lines "
                 "starting in its K-th N-th by bytes; the shards' outputs, concatenated in order, "
                 "equal the whole run's. -o FOLDER writes FOLDER/<input name>.KKKKK-of-NNNNN, "
                 "and {shard} in -o is replaced by KKKKK-of-NNNNN [default: none: the whole "
                 "input]")
      ->type_name("K/N");
}

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

}  // namespace s2s::app
