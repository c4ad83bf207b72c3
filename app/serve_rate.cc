#include "serve_rate.h"

namespace s2s::app {

bool RateLimiter::admit(const std::string& client, std::size_t cost, Clock::time_point now) {
  std::lock_guard<std::mutex> lock(mutex_);
  const auto window_start = now - std::chrono::minutes(1);
  // Clients without a hit in the last minute are forgotten, so the map stays as small as the
  // set of recent clients.
  for (auto it = hits_.begin(); it != hits_.end();) {
    while (!it->second.empty() && it->second.front() <= window_start) it->second.pop_front();
    it = it->second.empty() ? hits_.erase(it) : std::next(it);
  }
  std::deque<Clock::time_point>& hits = hits_[client];
  if (hits.size() >= per_minute_) return false;
  hits.insert(hits.end(), cost, now);
  return true;
}

}  // namespace s2s::app
