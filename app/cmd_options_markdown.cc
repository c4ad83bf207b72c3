// s2s options-markdown (hidden): every option of every subcommand as the Markdown tables of
// docs/user-guide.md. It reads the same CLI11 options that --help and the man page print
// (make_man.sh), and marks those bound to a row of the settings table (s2s/settings.h) with their
// YAML keys, so that the guide is generated, never typed; tests/app/test_user_guide.cc fails when
// the guide's generated part differs from this output.
#include <iostream>
#include <string>
#include <vector>

#include "commands.h"
#include "s2s/settings.h"

namespace s2s::app {
namespace {

// Text safe inside a Markdown table cell: `|` would end the cell, `<` start an HTML tag.
std::string cell(const std::string& text) {
  std::string out;
  for (const char c : text) {
    if (c == '|') out += "\\|";
    else if (c == '<') out += "&lt;";
    else out += c;
  }
  return out;
}

// The option's names as --help writes them ("-b, --beam-size INT"), in a code span.
std::string option_names(const CLI::Option& option) {
  std::string names;
  for (const std::string& name : option.get_snames()) names += (names.empty() ? "-" : ", -") + name;
  for (const std::string& name : option.get_lnames()) names += (names.empty() ? "--" : ", --") + name;
  if (names.empty()) names = option.get_type_name();  // a positional argument: its type is its name
  else if (option.get_items_expected_max() > 0 && !option.get_type_name().empty())
    names += " " + option.get_type_name();
  return "`" + cell(names) + "`";
}

// The settings-table row an option is bound to (its long name is the row's key), or null.
const SettingRow* row_of(const CLI::Option& option, const std::vector<SettingRow>& rows) {
  for (const SettingRow& row : rows)
    for (const std::string& name : option.get_lnames())
      if (name == row.key) return &row;
  return nullptr;
}

// A help text split into what it says and its "[default: X]" suffix, if any.
struct Help {
  std::string text;
  std::string default_value;
};
Help split_default(const std::string& description) {
  const std::string marker = " [default: ";
  const std::size_t at = description.rfind(marker);
  if (at == std::string::npos || description.back() != ']') return {description, ""};
  return {description.substr(0, at),
          description.substr(at + marker.size(), description.size() - at - marker.size() - 1)};
}

void print_command_table(const CLI::App& cmd, const std::vector<SettingRow>& rows) {
  std::cout << "### `s2s " << cmd.get_name() << "`\n\n" << cell(cmd.get_description()) << ".\n\n";
  std::cout << "| option | YAML key | default | what it does |\n|---|---|---|---|\n";
  const auto shown = [](const CLI::Option* option) {
    return !option->get_group().empty() && option->get_name() != "--help";
  };
  for (const CLI::Option* option : cmd.get_options(shown)) {
    const Help help = split_default(option->get_description());
    const SettingRow* row = row_of(*option, rows);
    std::string keys;
    if (row != nullptr) {
      keys = "`" + row->key + "`";
      if (!row->marian_key.empty()) keys += ", `" + row->marian_key + "`";
    }
    std::cout << "| " << option_names(*option) << " | " << keys << " | "
              << cell(help.default_value) << " | " << cell(help.text) << " |\n";
  }
  std::cout << "\n";
}

// The settings-table rows behind a subcommand's options (translate and score have a table).
std::vector<SettingRow> rows_of(const std::string& command) {
  if (command == "translate") return setting_rows(Command::translate);
  if (command == "score") return setting_rows(Command::score);
  return {};
}

}  // namespace

void set_options_markdown_command(CLI::App& app) {
  CLI::App* cmd = app.add_subcommand(
      "options-markdown", "Print every subcommand's options as Markdown (docs/user-guide.md)");
  cmd->group("");  // hidden: a tool for the documentation, not for users
  cmd->callback([&app]() {
    const auto visible = [](const CLI::App* sub) { return !sub->get_group().empty(); };
    for (const CLI::App* sub : static_cast<const CLI::App&>(app).get_subcommands(visible))
      print_command_table(*sub, rows_of(sub->get_name()));
  });
}

}  // namespace s2s::app
