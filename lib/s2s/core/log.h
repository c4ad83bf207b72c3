// Messages to stderr. stdout carries only results, so everything human goes through here: the
// warnings, the error that ends a run, the final summary line and the progress line. With a log
// file (--log FILE, as Marian's), every message except the rewritten progress line is also
// appended to it, whatever the level: --quiet silences stderr only, as Marian's --quiet does.
#pragma once

#include <string>

namespace s2s::log {

enum class Level { quiet, warning, info };

void set_level(Level level);
Level level();

// Appends every message from now on to `path` too (created if needed). UsageError naming the
// file when it cannot be opened for writing.
void open_file(const std::string& path);

void warning(const std::string& message);  // "s2s: warning: <message>"
void info(const std::string& message);     // "s2s: <message>"
void error(const std::string& message);    // "s2s: error: <message>", at every level
void notice(const std::string& message);   // "s2s: <message>", at every level (e.g. interrupted)

// The progress line ("s2s: <message>"), rewritten in place on stderr when `shown`, never in the
// log file; `final` ends it, and the final one also goes to the log file, shown or not (the
// run's summary).
void progress(const std::string& message, bool final, bool shown);

// True when stderr is a terminal: only then is a progress line shown.
bool stderr_is_terminal();

}  // namespace s2s::log
