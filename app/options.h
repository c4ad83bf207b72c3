// The translate flags: one CLI11 option per row of the library's settings table
// (s2s/pipeline/settings.h), so that a flag cannot drift from its YAML key.
//
// Usage (cmd_translate.cc):
//   OptionFlags flags;  add_translate_flags(*cmd, flags);        // before parsing
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
  std::vector<CLI::Option*> options;
};

// Registers every table row on `cmd` (help text shows the built-in defaults).
void add_translate_flags(CLI::App& cmd, OptionFlags& flags);

// Applies the rows given on the command line (count() > 0), last, so that they win.
// UsageError naming the flag when a value is out of range.
void apply_flags(const OptionFlags& flags, TranslateSettings& settings);

}  // namespace s2s::app
