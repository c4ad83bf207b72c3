// CLI11's parse errors as s2s says usage errors: one line that names the flag and says what to do
// (CLI11's own texts read "--input: At Most 1 required but received 2", or list unexpected
// arguments last first).
#pragma once

#include <CLI/CLI.hpp>
#include <string>

namespace s2s::app {

// The message for `error`, raised while `app` (s2s's top-level app) parsed its command line.
std::string usage_message(const CLI::ParseError& error, const CLI::App& app);

}  // namespace s2s::app
