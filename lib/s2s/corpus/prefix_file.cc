#include "s2s/corpus/prefix_file.h"

#include <algorithm>

#include "s2s/core/error.h"
#include "s2s/pipeline/shard.h"
#include "s2s/text/clean.h"

namespace s2s::corpus {

PrefixFile::PrefixFile(const std::string& path, const std::atomic<bool>* stop,
                       std::size_t lines_before)
    : path_(path), file_(path, false), reader_(file_.fd(), stop) {
  // The reader has not read yet: moving the descriptor moves where it starts. A file that ends
  // before leaves the descriptor at its end, and attach says which line is missing.
  if (lines_before > 0) pipeline::seek_to_line(file_.fd(), lines_before + 1, path);
}

void PrefixFile::attach(std::vector<std::string>& lines, std::size_t first_line) {
  std::vector<std::string> more;
  while (pending_.size() < lines.size() && reader_.next_window(more, lines.size() - pending_.size()))
    for (std::string& m : more) pending_.push_back(std::move(m));
  if (pending_.size() < lines.size())
    throw InputError(path_ + ": --prefix-file has no line " +
                     std::to_string(first_line + pending_.size()) +
                     "; it needs one line (a prefix, or empty) per input line");
  if (first_line == 1) text::strip_bom(pending_.front());  // as the input's own first line
  for (std::size_t i = 0; i < lines.size(); ++i) {
    std::replace(lines[i].begin(), lines[i].end(), '\t', ' ');
    lines[i] += '\t';
    lines[i] += pending_[i];
  }
  pending_.erase(pending_.begin(), pending_.begin() + static_cast<std::ptrdiff_t>(lines.size()));
}

void PrefixFile::check_end(std::size_t input_lines) {
  std::vector<std::string> more;
  if (pending_.empty() && !reader_.next_window(more, 1)) return;
  throw InputError(path_ + ": --prefix-file has more lines than the input (" +
                   std::to_string(input_lines) + "); each input line needs exactly one");
}

}  // namespace s2s::corpus
