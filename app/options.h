// The translate and score flags: one CLI11 option per row of the library's settings table of
// that command (s2s/settings.h), so that a flag cannot drift from its YAML key.
//
// Usage (cmd_translate.cc; cmd_score.cc the same with Command::score):
//   OptionFlags flags;  add_option_flags(*cmd, Command::translate, flags);  // before parsing
//   job.settings.given = given_settings(flags);                             // after parsing
#pragma once

#include <CLI/CLI.hpp>
#include <string>
#include <utility>
#include <vector>

#include "s2s/settings.h"

namespace s2s::app {

// What the CLI11 binding keeps until parsing is done: one option per table row.
struct OptionFlags {
  std::vector<SettingRow> rows;
  std::vector<CLI::Option*> options;
  // add_marian_flags' ignored options and their flags (hidden options have no CLI11 name)
  std::vector<std::pair<CLI::Option*, std::string>> marian_ignored;
};

// Registers every row of `command`'s table on `cmd` (help text shows the built-in defaults).
void add_option_flags(CLI::App& cmd, Command command, OptionFlags& flags);

// The rows given on the command line (count() > 0), as the library takes them, each named by
// its flag in messages.
GivenSettings given_settings(const OptionFlags& flags);

// Marian's options that s2s ignores or refuses (s2s/settings.h marian_flags) on `cmd`, hidden
// from --help (docs/marian-options.md lists them); names `cmd` already has are left alone. Call
// after the command's other options. A refused one given is a UsageError saying why.
void add_marian_flags(CLI::App& cmd, Command command, OptionFlags& flags);

// The ignored Marian flags given on the command line ("--devices", ...), for the run's note.
std::vector<std::string> ignored_given(const OptionFlags& flags);

// -o, --shard and --resume: where a run writes, and how a long run is cut and continued.
// `inputs` names what a resumed run checks in --resume's help: "input" or "inputs".
void add_output_flags(CLI::App& cmd, std::string& output, std::string& shard, bool& resume,
                      const char* inputs);

}  // namespace s2s::app
