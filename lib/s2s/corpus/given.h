// A run's settings, resolved in two phases (run.h): the rows given by the caller (flags) found
// by key in the command's table, the --config file, and the note about Marian options ignored.
#pragma once

#include <string>
#include <vector>

#include "s2s/corpus/run.h"
#include "s2s/pipeline/settings.h"

namespace s2s::corpus {

// Applies `given` in order; UsageError naming the origin for an unknown key or a bad value.
void apply_given(const GivenSettings& given, pipeline::TranslateSettings& settings);
void apply_given(const GivenSettings& given, pipeline::ScoreSettings& settings);

// The first phase: defaults < `config_path`'s file ("" none) < given. Returns what the file
// holds besides the table's keys.
pipeline::ConfigFileNotes early_settings(const RunSettings& run, const std::string& config_path,
                                         pipeline::TranslateSettings& settings);
pipeline::ConfigFileNotes early_settings(const RunSettings& run, const std::string& config_path,
                                         pipeline::ScoreSettings& settings);

// One note (unless quiet) naming the Marian options given (`run.ignored`) and in the config file
// (`config`) that s2s ignores; nothing when there are none.
void note_ignored(const RunSettings& run, const pipeline::ConfigFileNotes& config,
                  const std::string& config_path);

// The model folder of a run: run.model, else the config file's `models`, else the default.
std::string model_folder(const RunSettings& run, const pipeline::ConfigFileNotes& config);

}  // namespace s2s::corpus
