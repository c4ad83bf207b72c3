// Several translators at once on one model (`s2s translate --workers N`): a window of lines is cut
// into N contiguous parts of about equal size in bytes, each part is translated by
// Translator::translate on its own thread with its own number of compute threads, and the
// results are put back together in input order. The model, its weights and oneDNN's primitives
// are shared read-only; each thread has its own scratch buffers (thread_local) and oneDNN stream.
// Results are those of one translator: a line's translation never depends on the other lines.
#pragma once

#include <atomic>
#include <cstddef>
#include <string>
#include <vector>

#include "s2s/pipeline/translator.h"

namespace s2s::pipeline {

struct ParallelOptions {
  int workers = 1;             // translators running at once
  int threads_per_worker = 1;  // compute (OpenMP) threads of each
};

// Translator::translate_each over `lines` with options.workers translators at once, each on a
// contiguous part. Same contract (`done` once per line as soon as it is finished, `stop`), and
// `done` is never called from two threads at once. With one worker, or fewer lines than
// workers, it runs on the calling thread.
void translate_in_parallel(const Translator& translator, const std::vector<std::string>& lines,
                           const ParallelOptions& options, const Translator::LineDone& done,
                           std::size_t first_line_number = 1,
                           const std::atomic<bool>* stop = nullptr);

}  // namespace s2s::pipeline
