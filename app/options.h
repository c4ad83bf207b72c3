// The translate options: one table of (flag, YAML key, help, target field) that feeds both the
// CLI11 flags and the YAML reader, so a config key cannot drift from its flag (STYLE.md §3.13).
//
// Precedence, lowest first: the defaults of the structs below (SearchOptions holds
// marian-decoder's), the model's decoder.yml (only keys that change translations), --config FILE,
// then flags given on the command line.
//
// Usage (cmd_translate.cc):
//   OptionFlags flags;  add_translate_flags(*cmd, flags);        // before parsing
//   TranslateSettings s;                                          // after parsing:
//   apply_model_defaults(model.info(), s);
//   read_yaml_options(config, YamlSource::config, s);
//   apply_flags(flags, s);
#pragma once

#include <CLI/CLI.hpp>
#include <cstddef>
#include <string>
#include <vector>

#include "s2s/pipeline/output.h"
#include "s2s/pipeline/translator.h"

namespace s2s::app {

// Everything `s2s translate` can be told through the table.
struct TranslateSettings {
  TranslateOptions translate;  // search options and batch sizes, for the Translator
  dim_t maxi_batch = 1000;     // lines read per window when input arrives faster than it is used
  dim_t threads = 0;           // 0: OMP_NUM_THREADS if set, else all cores (divided by workers)
  dim_t workers = 1;           // translators running at once on one shared model
  ops::Precision precision = ops::Precision::f32;  // what the linear layers compute in
  OutputFormat format = OutputFormat::text;
  bool quiet = false;
  std::string target_lang;  // multilingual models: the >>xxx<< label put before every line
  std::string source_spm;   // SentencePiece models for folders without them (CTranslate2)
  std::string target_spm;
};

// What the CLI11 binding keeps until parsing is done: one option per table row.
struct OptionFlags {
  std::vector<CLI::Option*> options;
};

// Registers every table row on `cmd` (help text shows the built-in defaults).
void add_translate_flags(CLI::App& cmd, OptionFlags& flags);

// Applies the rows given on the command line (count() > 0), last, so that they win.
// UsageError naming the flag when a value is out of range.
void apply_flags(const OptionFlags& flags, TranslateSettings& settings);

enum class YamlSource {
  model,   // the model's own settings (ModelInfo::search_defaults, e.g. its decoder.yml): only
           // keys that change results; other keys ignored (Marian writes many); a bad value is a
           // ModelError naming the file
  config,  // --config FILE: every key must be in the table; errors are UsageErrors
};

// Applies the model's own settings (decoder.yml, HF generation config, CTranslate2 defaults).
void apply_model_defaults(const ModelInfo& info, TranslateSettings& settings);

// Reads the table's keys from a YAML mapping file into `settings`.
void read_yaml_options(const std::string& path, YamlSource source, TranslateSettings& settings);

}  // namespace s2s::app
