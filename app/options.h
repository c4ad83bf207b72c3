// The translate and score flags: one CLI11 option per row of the library's settings table of
// that command (s2s/pipeline/settings.h), so that a flag cannot drift from its YAML key.
//
// Usage (cmd_translate.cc; cmd_score.cc the same with Command::score and ScoreSettings):
//   OptionFlags flags;  add_option_flags(*cmd, Command::translate, flags);  // before parsing
//   TranslateSettings s;                                          // after parsing:
//   apply_model_defaults(model.info(), s);
//   read_yaml_options(config, YamlSource::config, s);
//   apply_flags(flags, s);
#pragma once

#include <CLI/CLI.hpp>
#include <vector>

#include "s2s/pipeline/settings.h"

namespace s2s::app {

// What the CLI11 binding keeps until parsing is done: one option per table row.
struct OptionFlags {
  pipeline::Command command = pipeline::Command::translate;
  std::vector<CLI::Option*> options;
};

// Registers every row of `command`'s table on `cmd` (help text shows the built-in defaults).
void add_option_flags(CLI::App& cmd, pipeline::Command command, OptionFlags& flags);

// Applies the rows given on the command line (count() > 0), last, so that they win.
// UsageError naming the flag when a value is out of range.
void apply_flags(const OptionFlags& flags, pipeline::TranslateSettings& settings);
void apply_flags(const OptionFlags& flags, pipeline::ScoreSettings& settings);

}  // namespace s2s::app
