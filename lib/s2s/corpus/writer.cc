#include "s2s/corpus/writer.h"

#include <cstdio>

#include "s2s/core/log.h"
#include "s2s/corpus/files.h"
#include "s2s/text/clean.h"

namespace s2s::corpus {

void Progress::update(std::size_t lines, bool final) {
  if (callback_) callback_(lines, final);
  const auto now = Clock::now();
  if (!final && (!shown_ || now - last_ < std::chrono::milliseconds(250))) return;
  last_ = now;
  const double seconds = std::chrono::duration<double>(now - start_).count();
  char text[96];
  std::snprintf(text, sizeof text, "%zu %s, %.1f lines/s", lines, lines == 1 ? "line" : "lines",
                seconds > 0 ? static_cast<double>(lines) / seconds : 0.0);
  log::progress(text, final, shown_);
}

void InOrderWriter::start_window(std::size_t lines, const std::vector<std::uint64_t>& line_ends) {
  slots_.assign(lines, Slot{});
  line_ends_ = line_ends;
  next_ = 0;
}

bool InOrderWriter::put(std::size_t index, std::string record, pipeline::InputNotes notes) {
  slots_[index] = Slot{std::move(record), std::move(notes), true};
  std::string out;
  for (; next_ < slots_.size() && slots_[next_].ready; ++next_) {
    Slot& slot = slots_[next_];
    for (const std::string& warning : warnings_(lines_before_ + written_ + 1, slot.notes))
      log::warning(warning);
    out += slot.record;
    slot = Slot{};  // frees the written record
    ++written_;
  }
  if (out.empty() || closed_) return !closed_;
  text::repair_utf8(out);  // whatever the model and SentencePiece produce, the output is UTF-8
  closed_ = !write_all(fd_, out);
  bytes_ += out.size();
  if (!closed_ && written_hook_)
    written_hook_(written_, line_ends_[next_ - 1], bytes_, next_ == slots_.size());
  progress_.update(written_, false);
  return !closed_;
}

}  // namespace s2s::corpus
