#include "s2s/pipeline/parallel_translate.h"

#include <exception>
#include <mutex>
#include <thread>

#include "s2s/core/threads.h"

namespace s2s::pipeline {
namespace {

// Where each of `parts` contiguous parts of `lines` begins (plus lines.size() at the end), cut so
// that the parts hold about the same number of bytes: a rough measure of the work in them.
std::vector<std::size_t> part_starts(const std::vector<std::string>& lines, std::size_t parts) {
  std::size_t total = 0;
  for (const std::string& l : lines) total += l.size() + 1;
  std::vector<std::size_t> starts{0};
  std::size_t bytes = 0;
  for (std::size_t i = 0; i < lines.size() && starts.size() < parts; ++i) {
    bytes += lines[i].size() + 1;
    if (bytes * parts >= total * starts.size()) starts.push_back(i + 1);
  }
  while (starts.size() <= parts) starts.push_back(lines.size());
  return starts;
}

}  // namespace

void translate_in_parallel(const Translator& translator, const std::vector<std::string>& lines,
                           const ParallelOptions& options, const Translator::LineDone& done,
                           std::size_t first_line_number, const std::atomic<bool>* stop) {
  const std::size_t workers = static_cast<std::size_t>(std::max(options.workers, 1));
  if (workers == 1 || lines.size() < workers)
    return translator.translate_each(lines, done, first_line_number, stop);

  const std::vector<std::size_t> starts = part_starts(lines, workers);
  std::mutex done_mutex;
  std::vector<std::exception_ptr> errors(workers);
  std::vector<std::thread> threads;
  for (std::size_t w = 0; w < workers; ++w) {
    threads.emplace_back([&, w] {
      try {
        set_num_threads(options.threads_per_worker);  // OpenMP's setting is per thread
        const std::vector<std::string> part(lines.begin() + static_cast<std::ptrdiff_t>(starts[w]),
                                            lines.begin() + static_cast<std::ptrdiff_t>(starts[w + 1]));
        translator.translate_each(
            part,
            [&](std::size_t i, Translation translation, const InputNotes& notes) {
              const std::lock_guard<std::mutex> lock(done_mutex);
              done(starts[w] + i, std::move(translation), notes);
            },
            first_line_number + starts[w], stop);
      } catch (...) {
        errors[w] = std::current_exception();
      }
    });
  }
  for (std::thread& t : threads) t.join();
  for (const std::exception_ptr& e : errors)  // the first part's error first, as one thread would
    if (e) std::rethrow_exception(e);
}

}  // namespace s2s::pipeline
