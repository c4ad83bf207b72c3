// LibreTranslate's --req-limit for `s2s serve`: at most N requests per client per minute, in a
// moving window (flask-limiter's "moving-window" strategy, as LibreTranslate configures it); a
// request of a list of texts costs one per text (app.py req_cost).
#pragma once

#include <chrono>
#include <cstddef>
#include <deque>
#include <map>
#include <mutex>
#include <string>

namespace s2s::app {

class RateLimiter {
 public:
  using Clock = std::chrono::steady_clock;
  explicit RateLimiter(std::size_t per_minute) : per_minute_(per_minute) {}

  // False when `client` has used its requests of the last minute; otherwise counts `cost` of
  // them at `now` and returns true.
  bool admit(const std::string& client, std::size_t cost, Clock::time_point now = Clock::now());
  std::size_t per_minute() const { return per_minute_; }

 private:
  std::size_t per_minute_;
  std::mutex mutex_;
  std::map<std::string, std::deque<Clock::time_point>> hits_;
};

}  // namespace s2s::app
