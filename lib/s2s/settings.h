// The settings of `s2s translate` and `s2s score` as data, for a front end that binds them to
// flags, forms or keyword arguments (the s2s command binds one CLI11 option per row): each row is
// a key of the YAML --config files and of Engine's settings, with its flag names, help text and
// built-in default. Values stay text here; the library parses them (a bad one is a UsageError
// naming where it came from). Also where the shipped model and configs are.
#pragma once

#include <string>
#include <vector>

namespace s2s {

enum class Command { translate, score };

// What a row's value is: for type names and choices in a front end's help.
enum class SettingKind {
  whole_number,
  number,
  on_off,  // a switch: given without a value it means "true"
  format,  // one of SettingRow::choices
  text,
  long_lines,  // one of SettingRow::choices
  precision,
  sampling,   // "full", "topk K", "topp P" (two words on a command line, one string here)
  alignment,  // "hard", "soft" or a threshold
  words,      // a file and its arguments: several words on a command line, a list in YAML
};

struct SettingRow {
  std::string key;         // the YAML key, and the long flag without "--"
  std::string short_flag;  // e.g. "-b", or ""
  std::string marian_key;  // Marian's name when it differs (a flag and a key too), or ""
  bool has_bare_value = false;  // the flag may be given without a value, meaning bare_value
  std::string bare_value;
  SettingKind kind = SettingKind::text;
  std::string help;
  std::string default_value;         // the built-in default, as text
  std::vector<std::string> choices;  // format and long_lines: the accepted values
};

// Every row of `command`'s table, in the order of --help.
std::vector<SettingRow> setting_rows(Command command);

// One setting given by the user: `key` is a row's key (or its Marian name), `value` its text;
// `origin` names where it came from in messages ("--beam-size"; "" means the key).
struct GivenSetting {
  std::string key;
  std::string value;
  std::string origin = {};
};
using GivenSettings = std::vector<GivenSetting>;

// Whether a key of a model's own settings (its decoder.yml) is applied: those that change
// translations (beam-size, normalize, ...); the others are ignored.
bool applies_from_model(const std::string& key);

// Marian's options that s2s does not have under their own name: accepted and ignored (they do
// not apply on the CPU; one note lists those given) or refused with `what` saying why.
struct MarianFlag {
  std::string name;        // the long flag without "--"
  std::string short_flag;  // e.g. "-w", or ""
  bool refused = false;
  bool takes_values = false;  // false: a switch
  std::string what;           // why it is ignored or refused
};
std::vector<MarianFlag> marian_flags(Command command);

// The folder of the default model: $S2S_MODEL when set (ModelError when it is no folder), else
// the model shipped with s2s, looked for next to the program or library that holds this code
// (a build folder) and in the share/s2s/models of the prefix it is installed in. UsageError when
// there is none, saying where it looked.
std::string default_model_folder();

// The file `--config NAME` means: NAME itself when it exists or holds a '/', else the shipped
// NAME.yml (configs/ of a build folder, share/s2s/configs of an installed prefix, found as the
// default model is). UsageError when there is none.
std::string config_file(const std::string& name);

}  // namespace s2s
