// The public C++ API of the s2s library: load a model folder, translate lines, score pairs.
// A program needs this header only (it brings s2s/core/error.h, the error kinds); everything
// else under s2s/ is the engine's inside and may change between releases.
//
//   s2s::Engine engine("opus-mt-en-de", {{"beam-size", "4"}, {"precision", "int8"}});
//   for (const std::string& text : engine.translate({"Hello world.", ""})) std::cout << text;
//
// Settings use the names of `s2s translate` and its --config files (`s2s translate --help`;
// Marian's names such as "mini-batch" and "cpu-threads" too), ranked above the model's own
// (its decoder.yml). "threads" and "precision" shape loading; the rest apply to every call.
// Errors are exceptions: UsageError (a bad setting), ModelError (the folder), InputError.
//
// Threads: the engine computes with OpenMP threads and sets their number for the process
// ("threads", 0 = every core, shared with other programs). SIGINT/SIGTERM should be blocked in
// the threads that call the engine (oneDNN's kernels move the stack pointer into the heap; a
// signal handler running there corrupts it): block them before creating threads and wait for
// them in one thread of your own with sigwait, as the s2s command does.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "s2s/core/error.h"

namespace s2s {

// (name, value) pairs, applied in order.
using Settings = std::vector<std::pair<std::string, std::string>>;

// One translation of a line.
struct Candidate {
  std::string text;
  float score = 0.0f;             // log-probability of the target tokens (Marian's F0 score)
  float normalized_score = 0.0f;  // what the search ranks by (normalize, word-penalty)
  std::string alignment;          // with the setting "alignment": as marian-decoder prints it
};

// The log-probability of a target given its source, as `s2s score` and marian-scorer give it.
struct ScoredPair {
  float score = 0.0f;             // sum over the target tokens, </s> included
  float normalized_score = 0.0f;  // score / tokens^normalize
  std::size_t target_tokens = 0;  // </s> included
};

class Engine {
 public:
  // Loads the model in `model_folder`: a Marian / OPUS-MT folder, a Hugging Face MarianMT folder
  // or a CTranslate2 folder. ModelError when it cannot; UsageError for a bad setting.
  explicit Engine(const std::string& model_folder, const Settings& settings = {});
  ~Engine();
  Engine(Engine&&) noexcept;
  Engine& operator=(Engine&&) noexcept;

  // One translation per line, in order; a blank line gives "". Lines longer than "max-length"
  // tokens are split, truncated or refused as "long-lines" says.
  // With the setting {"prefix", "true"} each line is "source\tprefix" and its translation
  // starts with the prefix (as `s2s translate --prefix`).
  std::vector<std::string> translate(const std::vector<std::string>& lines) const;

  // The n-best list of every line, best first: one candidate unless "n-best" is on (then the
  // whole final beam); none for a blank line.
  std::vector<std::vector<Candidate>> translate_n_best(const std::vector<std::string>& lines) const;

  // One score per (source, target) pair, in order ("normalize" applies).
  std::vector<ScoredPair> score(const std::vector<std::pair<std::string, std::string>>& pairs) const;

  // The folder of the model s2s ships: $S2S_MODEL, else the one installed with the library.
  static std::string default_model_folder();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace s2s
