#include "s2s/corpus/given.h"

#include "s2s/core/error.h"
#include "s2s/core/log.h"
#include "s2s/core/strings.h"

namespace s2s::corpus {
namespace {

// The table row of `key` (s2s's name or Marian's); UsageError when there is none.
std::size_t row_of(pipeline::Command command, const std::string& key, const std::string& origin) {
  for (std::size_t i = 0; i < pipeline::option_count(command); ++i) {
    const pipeline::OptionRow row = pipeline::option_row(command, i);
    if (key == row.key || (row.marian_key != nullptr && key == row.marian_key)) return i;
  }
  throw UsageError(origin + ": unknown setting '" + key + "' (see s2s " +
                   (command == pipeline::Command::translate ? "translate" : "score") + " --help)");
}

template <typename Settings>
void apply_rows(pipeline::Command command, const GivenSettings& given, Settings& settings) {
  for (const GivenSetting& g : given) {
    const std::string where = g.origin.empty() ? g.key : g.origin;
    pipeline::set_option(row_of(command, g.key, where), g.value, where, settings);
  }
}

}  // namespace

void apply_given(const GivenSettings& given, pipeline::TranslateSettings& settings) {
  apply_rows(pipeline::Command::translate, given, settings);
}

void apply_given(const GivenSettings& given, pipeline::ScoreSettings& settings) {
  apply_rows(pipeline::Command::score, given, settings);
}

pipeline::ConfigFileNotes early_settings(const RunSettings& run, const std::string& config_path,
                                         pipeline::TranslateSettings& settings) {
  pipeline::ConfigFileNotes notes;
  if (!config_path.empty())
    notes = pipeline::read_yaml_options(config_path, pipeline::YamlSource::config, settings);
  apply_given(run.given, settings);
  return notes;
}

pipeline::ConfigFileNotes early_settings(const RunSettings& run, const std::string& config_path,
                                         pipeline::ScoreSettings& settings) {
  pipeline::ConfigFileNotes notes;
  if (!config_path.empty()) notes = pipeline::read_yaml_options(config_path, settings);
  apply_given(run.given, settings);
  return notes;
}

void note_ignored(const RunSettings& run, const pipeline::ConfigFileNotes& config,
                  const std::string& config_path) {
  std::vector<std::string> parts;
  if (!run.ignored.empty()) parts.push_back(join(run.ignored, ", "));
  if (!config.ignored.empty()) parts.push_back(join(config.ignored, ", ") + " in " + config_path);
  if (parts.empty() || log::level() < log::Level::warning) return;
  log::notice("ignored, as they do not apply to s2s on the CPU (docs/marian-options.md says "
              "why): " + join(parts, "; "));
}

std::string model_folder(const RunSettings& run, const pipeline::ConfigFileNotes& config) {
  if (!run.model.empty()) return run.model;
  if (!config.model.empty()) return config.model;
  return default_model_folder();
}

}  // namespace s2s::corpus
