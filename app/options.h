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
#include <string>
#include <utility>
#include <vector>

#include "s2s/pipeline/marian_options.h"
#include "s2s/pipeline/settings.h"

namespace s2s::app {

// What the CLI11 binding keeps until parsing is done: one option per table row.
struct OptionFlags {
  pipeline::Command command = pipeline::Command::translate;
  std::vector<CLI::Option*> options;
  // add_marian_flags' ignored options and their flags (hidden options have no CLI11 name)
  std::vector<std::pair<CLI::Option*, std::string>> marian_ignored;
};

// Registers every row of `command`'s table on `cmd` (help text shows the built-in defaults).
void add_option_flags(CLI::App& cmd, pipeline::Command command, OptionFlags& flags);

// Applies the rows given on the command line (count() > 0), last, so that they win.
// UsageError naming the flag when a value is out of range.
void apply_flags(const OptionFlags& flags, pipeline::TranslateSettings& settings);
void apply_flags(const OptionFlags& flags, pipeline::ScoreSettings& settings);

// Marian's options that s2s ignores or refuses (s2s/pipeline/marian_options.h) on `cmd`, hidden
// from --help (docs/marian-options.md lists them); names `cmd` already has are left alone. Call
// after the command's other options. A refused one given is a UsageError saying why.
void add_marian_flags(CLI::App& cmd, pipeline::MarianTool tool, OptionFlags& flags);

// One note on stderr (unless --quiet) listing the Marian options given on the command line and
// in --config `config_path` that s2s ignores; nothing when there are none.
void note_ignored(const OptionFlags& flags, const pipeline::ConfigFileNotes& config,
                  const std::string& config_path);

}  // namespace s2s::app
