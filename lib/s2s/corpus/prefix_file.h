// --prefix-file: the target prefix of every input line, one per line of its own file, read in
// step with the input (the file's line N is input line N's prefix; an empty line = none).
#pragma once

#include <atomic>
#include <memory>
#include <string>
#include <vector>

#include "s2s/corpus/files.h"
#include "s2s/pipeline/line_reader.h"

namespace s2s::corpus {

class PrefixFile {
 public:
  // `lines_before`: input lines before the first one given to attach (a shard's), whose
  // prefixes are skipped.
  PrefixFile(const std::string& path, const std::atomic<bool>* stop, std::size_t lines_before = 0);

  // Turns each of `lines` (input lines first_line.. of the whole input) into
  // "source<TAB>prefix", the form the Translator reads with target_prefix (a tab inside the
  // source becomes a space first: the first tab must be the one before the prefix). InputError
  // when the file ends before the input.
  void attach(std::vector<std::string>& lines, std::size_t first_line);

  // At the end of the input: InputError when the file has more lines than the input had.
  void check_end(std::size_t input_lines);

 private:
  std::string path_;
  File file_;
  pipeline::LineReader reader_;
  std::vector<std::string> pending_;  // lines read but not yet attached
};

}  // namespace s2s::corpus
