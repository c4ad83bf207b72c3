// The Python module's compiled part (`s2s._s2s`), on the library's public API only (s2s/s2s.h).
// python/s2s/__init__.py gives it CTranslate2's shape (translate_iterable, keyword defaults).
//
// Every call into the engine releases the GIL, so that other Python threads run (two can
// translate at once), and watches for Ctrl-C itself: SIGINT is blocked in the calling thread for
// the call (the OpenMP threads the engine starts inherit that mask, so no signal ever lands on a
// thread inside oneDNN's kernels, which corrupts the heap: s2s.h), and a watcher thread takes it
// with sigtimedwait, sets the call's cancel flag, and the call ends in KeyboardInterrupt within a
// decoder step.
#include <pybind11/functional.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>
#include <pthread.h>
#include <signal.h>

#include <atomic>
#include <cerrno>
#include <ctime>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "s2s/s2s.h"

namespace py = pybind11;

namespace {

// For the duration of one engine call: SIGINT blocked in this thread (and the threads it
// starts), taken by a watcher that sets `cancel`.
class InterruptWatch {
 public:
  InterruptWatch() {
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGINT);
    pthread_sigmask(SIG_BLOCK, &set, &old_);
    watcher_ = std::thread([this, set] {
      const timespec tick{0, 50 * 1000 * 1000};
      while (!done_.load()) {
        if (sigtimedwait(&set, nullptr, &tick) == SIGINT) {
          interrupted_.store(true);
          cancel.store(true);
        }
      }
    });
  }
  ~InterruptWatch() {
    done_.store(true);
    watcher_.join();
    pthread_sigmask(SIG_SETMASK, &old_, nullptr);
  }
  bool interrupted() const { return interrupted_.load(); }

  std::atomic<bool> cancel{false};

 private:
  sigset_t old_;
  std::atomic<bool> done_{false};
  std::atomic<bool> interrupted_{false};
  std::thread watcher_;
};

// Runs `work` without the GIL under an InterruptWatch whose flag goes to `*cancel` (when
// given); Ctrl-C during the call becomes KeyboardInterrupt once it returns or stops.
template <typename Work>
auto run_released(const std::atomic<bool>** cancel, Work&& work) {
  InterruptWatch watch;
  if (cancel != nullptr) *cancel = &watch.cancel;
  const auto interrupted = [] {
    PyErr_SetNone(PyExc_KeyboardInterrupt);
    return py::error_already_set();
  };
  try {
    auto result = [&] {
      py::gil_scoped_release release;
      return work();
    }();
    if (watch.interrupted()) throw interrupted();
    return result;
  } catch (const s2s::Cancelled&) {
    if (!watch.interrupted()) throw;
    throw interrupted();
  }
}

std::string precision_of(const std::string& compute_type) {
  if (compute_type == "default" || compute_type == "auto" || compute_type == "float32")
    return "float32";
  if (compute_type == "int8" || compute_type == "int8_float32") return "int8";
  if (compute_type == "bfloat16") return "bfloat16";
  throw s2s::UsageError("compute_type '" + compute_type +
                        "': s2s computes in float32, int8 or bfloat16 (also default, auto, "
                        "int8_float32)");
}

// CTranslate2's Translator on an s2s Engine.
class Translator {
 public:
  Translator(const std::optional<std::string>& model_path, const std::string& compute_type,
             int inter_threads, int intra_threads, const s2s::Settings& settings) {
    s2s::Settings load = {{"precision", precision_of(compute_type)},
                          {"workers", std::to_string(inter_threads)},
                          {"threads", std::to_string(intra_threads)}};
    load.insert(load.end(), settings.begin(), settings.end());
    const std::string folder = model_path ? *model_path : s2s::default_model_folder();
    run_released(nullptr, [&] {
      engine_ = std::make_unique<s2s::Engine>(folder, load);
      return 0;
    });
    model_path_ = folder;
  }

  std::vector<s2s::TranslationResult> translate_batch(std::vector<std::string> lines,
                                                      s2s::TranslationOptions options) {
    return run_released(&options.cancel, [&] {
      return engine_->translate_batch(lines, options);
    });
  }

  std::size_t translate_file(const std::string& input, const std::string& output,
                             s2s::TranslationOptions options) {
    return run_released(&options.cancel, [&] {
      return engine_->translate_file(input, output, options);
    });
  }

  s2s::TranslationResult translate_tokens(const std::string& line, const py::function& callback,
                                          s2s::TranslationOptions options) {
    return run_released(&options.cancel, [&] {
      return engine_->translate_tokens(
          line,
          [&](const s2s::TokenStep& step) {
            py::gil_scoped_acquire hold;
            const py::object more = callback(step);
            return more.is_none() || more.cast<bool>();
          },
          options);
    });
  }

  std::vector<s2s::ScoringResult> score_batch(std::vector<std::pair<std::string, std::string>> pairs,
                                              s2s::ScoringOptions options) {
    return run_released(&options.cancel, [&] { return engine_->score_batch(pairs, options); });
  }

  const std::string& model_path() const { return model_path_; }

 private:
  std::unique_ptr<s2s::Engine> engine_;
  std::string model_path_;
};

}  // namespace

PYBIND11_MODULE(_s2s, m) {
  m.doc() = "s2s's engine (the compiled part of the s2s package; use s2s.Translator)";
  // The base first: pybind11 tries the translators last registered first. Each kind is an
  // s2s.Error and the Python error it is (a bad argument: ValueError).
  const py::object error = py::register_exception<s2s::Error>(m, "Error", PyExc_RuntimeError);
  const py::object value_error = py::reinterpret_borrow<py::object>(PyExc_ValueError);
  py::register_exception<s2s::ModelError>(m, "ModelError", error);
  py::register_exception<s2s::Cancelled>(m, "Cancelled", error);
  py::register_exception<s2s::UsageError>(m, "UsageError", py::make_tuple(error, value_error));
  py::register_exception<s2s::InputError>(m, "InputError", py::make_tuple(error, value_error));

  py::class_<s2s::TranslationOptions>(m, "TranslationOptions")
      .def(py::init<>())
      .def_readwrite("beam_size", &s2s::TranslationOptions::beam_size)
      .def_readwrite("num_hypotheses", &s2s::TranslationOptions::num_hypotheses)
      .def_readwrite("length_penalty", &s2s::TranslationOptions::length_penalty)
      .def_readwrite("word_penalty", &s2s::TranslationOptions::word_penalty)
      .def_readwrite("max_input_length", &s2s::TranslationOptions::max_input_length)
      .def_readwrite("max_decoding_length", &s2s::TranslationOptions::max_decoding_length)
      .def_readwrite("max_length_factor", &s2s::TranslationOptions::max_length_factor)
      .def_readwrite("min_decoding_length", &s2s::TranslationOptions::min_decoding_length)
      .def_readwrite("repetition_penalty", &s2s::TranslationOptions::repetition_penalty)
      .def_readwrite("no_repeat_ngram_size", &s2s::TranslationOptions::no_repeat_ngram_size)
      .def_readwrite("allow_unk", &s2s::TranslationOptions::allow_unk)
      .def_readwrite("sampling_topk", &s2s::TranslationOptions::sampling_topk)
      .def_readwrite("sampling_topp", &s2s::TranslationOptions::sampling_topp)
      .def_readwrite("sampling_temperature", &s2s::TranslationOptions::sampling_temperature)
      .def_readwrite("seed", &s2s::TranslationOptions::seed)
      .def_readwrite("target_prefix", &s2s::TranslationOptions::target_prefix)
      .def_readwrite("alignment", &s2s::TranslationOptions::alignment)
      .def_readwrite("protect", &s2s::TranslationOptions::protect)
      .def_readwrite("html", &s2s::TranslationOptions::html)
      .def_readwrite("settings", &s2s::TranslationOptions::settings);

  py::class_<s2s::ScoringOptions>(m, "ScoringOptions")
      .def(py::init<>())
      .def_readwrite("length_penalty", &s2s::ScoringOptions::length_penalty)
      .def_readwrite("alignment", &s2s::ScoringOptions::alignment);

  py::class_<s2s::Span>(m, "Span")
      .def_readonly("begin", &s2s::Span::begin)
      .def_readonly("end", &s2s::Span::end)
      .def("__iter__", [](const s2s::Span& s) {
        return py::iter(py::make_tuple(s.begin, s.end));
      });

  py::class_<s2s::Hypothesis>(m, "Hypothesis")
      .def_readonly("text", &s2s::Hypothesis::text)
      .def_readonly("tokens", &s2s::Hypothesis::tokens)
      .def_readonly("token_scores", &s2s::Hypothesis::token_scores)
      .def_readonly("score", &s2s::Hypothesis::score)
      .def_readonly("normalized_score", &s2s::Hypothesis::normalized_score)
      .def_readonly("alignment", &s2s::Hypothesis::alignment)
      .def_readonly("soft_alignment", &s2s::Hypothesis::soft_alignment)
      .def_readonly("word_alignment", &s2s::Hypothesis::word_alignment)
      .def_readonly("word_spans", &s2s::Hypothesis::word_spans)
      .def_readonly("alignment_text", &s2s::Hypothesis::alignment_text);

  py::class_<s2s::LineNotes>(m, "LineNotes")
      .def_readonly("sentences", &s2s::LineNotes::sentences)
      .def_readonly("invalid_utf8", &s2s::LineNotes::invalid_utf8)
      .def_readonly("split_for_length", &s2s::LineNotes::split_for_length)
      .def_readonly("truncated", &s2s::LineNotes::truncated)
      .def_readonly("source_tokens", &s2s::LineNotes::source_tokens)
      .def_readonly("short_units", &s2s::LineNotes::short_units)
      .def_readonly("glossary_unmet", &s2s::LineNotes::glossary_unmet)
      .def_readonly("protected_spans", &s2s::LineNotes::protected_spans)
      .def_readonly("unspellable", &s2s::LineNotes::unspellable)
      .def_readonly("markup_problem", &s2s::LineNotes::markup_problem)
      .def_readonly("warnings", &s2s::LineNotes::warnings);

  py::class_<s2s::TranslationResult>(m, "RawTranslationResult")
      .def_readonly("hypotheses", &s2s::TranslationResult::hypotheses)
      .def_readonly("notes", &s2s::TranslationResult::notes);

  py::class_<s2s::ScoringResult>(m, "RawScoringResult")
      .def_readonly("score", &s2s::ScoringResult::score)
      .def_readonly("normalized_score", &s2s::ScoringResult::normalized_score)
      .def_readonly("tokens", &s2s::ScoringResult::tokens)
      .def_readonly("token_scores", &s2s::ScoringResult::token_scores)
      .def_readonly("alignment", &s2s::ScoringResult::alignment)
      .def_readonly("word_alignment", &s2s::ScoringResult::word_alignment)
      .def_readonly("word_spans", &s2s::ScoringResult::word_spans);

  py::class_<s2s::TokenStep>(m, "TokenStep")
      .def_readonly("step", &s2s::TokenStep::step)
      .def_readonly("token_id", &s2s::TokenStep::id)
      .def_readonly("token", &s2s::TokenStep::token)
      .def_readonly("log_prob", &s2s::TokenStep::log_prob)
      .def_readonly("is_last", &s2s::TokenStep::is_last);

  py::class_<Translator>(m, "Engine")
      .def(py::init<const std::optional<std::string>&, const std::string&, int, int,
                    const s2s::Settings&>(),
           py::arg("model_path"), py::arg("compute_type"), py::arg("inter_threads"),
           py::arg("intra_threads"), py::arg("settings"))
      .def("translate_batch", &Translator::translate_batch)
      .def("translate_file", &Translator::translate_file)
      .def("translate_tokens", &Translator::translate_tokens)
      .def("score_batch", &Translator::score_batch)
      .def_property_readonly("model_path", &Translator::model_path);

  m.def("default_model_folder", &s2s::default_model_folder);
}
