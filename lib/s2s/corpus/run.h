// Corpus runs: what `s2s translate` and `s2s score` do to a file, as a library call. A run reads
// its input in windows (the same lines in every run of a file, so that shards and resumed runs
// batch as one whole run does), hands each window to its worker (the translator or the scorer),
// and writes one record per input line, in input order, each as soon as it and every line before
// it are done. It owns the whole lifecycle:
//   1. settings without the model (defaults < --config file < given settings): bad ones are
//      reported before the model loads, and those that shape loading (threads, precision,
//      workers, SentencePiece files) apply to it;
//   2. shard range, output path, resumable or fresh output (a stale journal removed);
//   3. the model, then the settings again ranked above the model's own (defaults < the model's
//      decoder.yml < --config < given);
//   4. the window loop, warnings naming lines of the whole input, the progress line, journal
//      commits at window boundaries (--resume), and the end.
// Errors are exceptions (s2s/core/error.h): UsageError, ModelError, InputError, Error.
#pragma once

#include <atomic>
#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "s2s/settings.h"

namespace s2s::corpus {

// Where a run's settings come from, shared by both commands.
struct RunSettings {
  // The model folder (or a file in it); "": the `models` the config file names, else
  // default_model_folder().
  std::string model;
  // A YAML file of settings, or the name of a shipped one (config_file); "": none.
  std::string config;
  // Applied last, in order (a command line's flags). The score keys are score's table's.
  GivenSettings given;
  // Marian options the caller was given and ignores (e.g. "--devices"): named in one note with
  // those the config file holds.
  std::vector<std::string> ignored;
};

struct TranslateJob {
  RunSettings settings;
  std::string input = "-";   // a file, or "-": standard input
  std::string output = "-";  // a file, or "-": standard output; with `shard` also a folder or a
                             // name holding {shard}
  std::string shard;         // "K/N": the K-th (0-based) of N byte ranges of `input`; "": all
  // Keep a journal next to the output (OUT.s2s-journal) and continue the run it describes; a
  // complete output is left as it is. UsageError when the input, model or settings changed.
  bool resume = false;
  // The target prefix of every input line, one per line of this file ("" none); as the
  // setting "prefix" with the prefixes in a file of their own.
  std::string prefix_file;
};

struct ScoreJob {
  RunSettings settings;
  // The pairs: `source` and `target` files of as many lines; or `nbest`, a Marian/Moses n-best
  // list, with `source` (written back with one more feature); or tab-separated pairs on `input`.
  std::string source, target, nbest;
  std::string input = "-";
  std::string output = "-";
  std::string shard;  // of the n-best list, the source file or the input, whichever is read
  bool resume = false;
};

// How a caller watches and stops a run.
struct RunControl {
  // Called once, when the run is about to start writing (the model loaded; for score as its
  // reading starts): the flag that stops it when set. It is checked between decoder steps,
  // batches and reads; a stopped run writes every record it finished (a resumed run continues
  // from its last window boundary). The run sets the flag itself when the output's reader went
  // away (a closed pipe). Empty: the run cannot be stopped.
  std::function<std::atomic<bool>*()> stop_flag;
  // After each write: the records this run has written so far (`final` once, at the end).
  std::function<void(std::size_t records, bool final)> progress;
  // "s2s: 1200 lines, 85.3 lines/s" rewritten on stderr while the run goes (only when stderr is
  // a terminal and the data is not), the last one also in the log file (s2s/core/log.h).
  bool progress_line = true;
};

struct RunResult {
  std::size_t lines_in_output = 0;  // records in the output, those of earlier runs included
  bool stopped = false;             // ended by the stop flag before the end of its input
};

// `s2s translate`: one record per input line (settings "format", "n-best", ...).
RunResult translate(const TranslateJob& job, const RunControl& control = {});
// `s2s score`: one record per pair, or one corpus figure (setting "summary").
RunResult score(const ScoreJob& job, const RunControl& control = {});

// How far a run started with `resume` has come, from its journal (OUT.s2s-journal).
struct RunStatus {
  bool complete = false;
  std::size_t lines_total = 0;    // lines of its input (range)
  std::size_t lines_done = 0;     // final: up to the last resume point
  std::size_t lines_written = 0;  // written, as of the last commit
  double lines_per_second = 0;    // of its current run; 0 when unknown
  double seconds_left = -1;       // at that rate; -1 when unknown
  double seconds_since_update = 0;
};

// The status of the run writing `output` at time `now` (seconds since the epoch); nullopt when
// it has no journal. InputError when the journal cannot be read.
std::optional<RunStatus> run_status(const std::string& output, double now);
// The same as one JSON object (one line): output, input, lines_done, lines_written, lines_total,
// complete, lines_per_second, seconds_left, seconds_since_update; {"output", "journal": null}
// without a journal.
std::string run_status_json(const std::string& output, double now);
// The journal file of `output`.
std::string journal_file(const std::string& output);

}  // namespace s2s::corpus
