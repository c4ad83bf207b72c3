#include "s2s/pipeline/line_reader.h"

#include <poll.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "s2s/core/error.h"

namespace s2s::pipeline {
namespace {

// One read(2) takes up to this much: large enough that a file costs few system calls.
constexpr std::size_t kReadSize = 64 * 1024;
// How long a wait for input may go without looking at the stop flag.
constexpr int kStopPollMs = 100;

void push_line(std::vector<std::string>& lines, const char* begin, std::size_t size) {
  if (size > 0 && begin[size - 1] == '\r') --size;  // CRLF
  lines.emplace_back(begin, size);
}

}  // namespace

LineReader::LineReader(int fd, const std::atomic<bool>* stop, std::uint64_t max_bytes)
    : fd_(fd), stop_(stop), left_(max_bytes) {}

bool LineReader::take_line(std::vector<std::string>& lines) {
  const char* data = buffer_.data();
  const void* newline = std::memchr(data + scan_, '\n', buffer_.size() - scan_);
  if (newline == nullptr) {
    scan_ = buffer_.size();
    return false;
  }
  const std::size_t end = static_cast<std::size_t>(static_cast<const char*>(newline) - data);
  push_line(lines, data + pos_, end - pos_);
  pos_ = scan_ = end + 1;
  ends_.push_back(dropped_ + pos_);
  return true;
}

bool LineReader::input_waiting() const {
  pollfd p{fd_, POLLIN, 0};
  int n;
  do n = ::poll(&p, 1, 0);
  while (n < 0 && errno == EINTR);
  // End of input (POLLHUP) and errors count as waiting: the next read reports them at once.
  return n != 0;
}

void LineReader::read_more() {
  // Drop the bytes already returned before growing the buffer, so it holds about one window.
  if (pos_ > 0) {
    dropped_ += pos_;
    buffer_.erase(0, pos_);
    scan_ -= pos_;
    pos_ = 0;
  }
  if (left_ == 0) {  // the end of a byte range
    eof_ = true;
    return;
  }
  const std::size_t old_size = buffer_.size();
  const std::size_t size = static_cast<std::size_t>(std::min<std::uint64_t>(kReadSize, left_));
  buffer_.resize(old_size + size);
  ssize_t n;
  // With a stop flag, wait in short polls: a signal that lands just before read(2) would
  // otherwise leave us blocked in it until more input comes.
  while (stop_ != nullptr && !stopped()) {
    pollfd p{fd_, POLLIN, 0};
    if (::poll(&p, 1, kStopPollMs) != 0) break;  // input, end of input, error, or EINTR
  }
  do n = stopped() ? -1 : ::read(fd_, &buffer_[old_size], size);
  while (n < 0 && errno == EINTR && !stopped());
  if (stopped()) {  // stopped while waiting for input
    buffer_.resize(old_size);
    eof_ = true;
    return;
  }
  if (n < 0) {
    const int error = errno;
    buffer_.resize(old_size);
    throw InputError(std::string("cannot read input: ") + std::strerror(error));
  }
  buffer_.resize(old_size + static_cast<std::size_t>(n));
  if (left_ != kNoLimit) left_ -= static_cast<std::uint64_t>(n);
  if (n == 0) eof_ = true;
}

bool LineReader::next_window(std::vector<std::string>& lines, std::size_t max_lines) {
  lines.clear();
  ends_.clear();
  if (stopped()) return false;
  if (max_lines == 0) max_lines = 1;
  while (true) {
    while (lines.size() < max_lines && take_line(lines)) {
    }
    if (lines.size() == max_lines) return true;
    if (eof_) {
      if (pos_ < buffer_.size()) {  // a last line without a newline
        push_line(lines, buffer_.data() + pos_, buffer_.size() - pos_);
        pos_ = scan_ = buffer_.size();
        ends_.push_back(dropped_ + pos_);
      }
      return !lines.empty();
    }
    // Everything buffered is used: hand over what we have unless more is already waiting.
    if (!lines.empty() && !input_waiting()) return true;
    read_more();
  }
}

}  // namespace s2s::pipeline
