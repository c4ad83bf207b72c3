// run_status (run.h): the journal of a --resume run, read for `s2s progress`.
#include "s2s/corpus/run.h"
#include "s2s/pipeline/journal.h"

namespace s2s::corpus {

std::string journal_file(const std::string& output) { return pipeline::journal_path(output); }

std::optional<RunStatus> run_status(const std::string& output, double now) {
  const std::optional<pipeline::Journal> j = pipeline::read_journal(pipeline::journal_path(output));
  if (!j) return std::nullopt;
  const pipeline::JournalProgress p = pipeline::journal_progress(*j, now);
  RunStatus status;
  status.complete = j->complete;
  status.lines_total = j->lines_total;
  status.lines_done = j->lines_done;
  status.lines_written = j->lines_written;
  status.lines_per_second = p.lines_per_second;
  status.seconds_left = p.seconds_left;
  status.seconds_since_update = p.seconds_since_update;
  return status;
}

std::string run_status_json(const std::string& output, double now) {
  const std::optional<pipeline::Journal> j = pipeline::read_journal(pipeline::journal_path(output));
  return pipeline::journal_progress_json(output, j ? &*j : nullptr, now);
}

}  // namespace s2s::corpus
