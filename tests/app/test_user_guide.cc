// docs/user-guide.md's option tables cannot drift from the program: they must be exactly what
// the hidden `s2s options-markdown` prints (the CLI11 options behind --help and the man page),
// every YAML key of the settings table must be in them, and every flag that --help lists must be
// in the guide and in the man page. tools/docs/update_user_guide.sh rewrites the tables.
#include <catch2/catch.hpp>
#include <cctype>
#include <filesystem>
#include <regex>
#include <string>
#include <vector>

#include "cli_runner.h"
#include "s2s/settings.h"
#include "test_utils.h"

namespace s2s {
namespace {

const std::string kGuide = test::data_path("../../docs/user-guide.md");
const std::string kBegin = "<!-- BEGIN options-markdown";
const std::string kEnd = "<!-- END options-markdown -->";
const std::vector<std::string> kCommands = {"translate", "score", "info", "progress", "serve"};

// The guide's generated part: the lines between the two markers.
std::string generated_part(const std::string& guide) {
  const std::size_t begin = guide.find(kBegin);
  const std::size_t end = guide.find(kEnd);
  if (begin == std::string::npos || end == std::string::npos || end < begin) return "";
  const std::size_t first_line = guide.find('\n', begin) + 1;
  return guide.substr(first_line, end - first_line);
}

// The part of the generated tables about one subcommand: from its heading to the next.
std::string command_section(const std::string& generated, const std::string& command) {
  const std::size_t begin = generated.find("### `s2s " + command + "`");
  if (begin == std::string::npos) return "";
  const std::size_t end = generated.find("### `s2s ", begin + 1);
  return generated.substr(begin, end == std::string::npos ? std::string::npos : end - begin);
}

// The long flags --help lists for `command` ("--beam-size", ...), --help itself left out.
std::vector<std::string> help_flags(const std::string& command) {
  const test::RunResult help = test::run_s2s(command + " --help");
  REQUIRE(help.exit_code == 0);
  std::vector<std::string> flags;
  const std::regex flag(R"((?:^|[ ,])(--[a-z][a-z0-9-]*))");
  for (const std::string& line : test::split_lines(help.out)) {
    if (line.rfind("  -", 0) != 0) continue;  // option lines start with two spaces and a dash
    const std::string names = line.substr(0, line.find("  ", 2));
    for (std::sregex_iterator it(names.begin(), names.end(), flag), end; it != end; ++it)
      if ((*it)[1] != "--help") flags.push_back((*it)[1]);
  }
  return flags;
}

// `flag` as troff writes it in the man page: every hyphen escaped.
std::string troff(const std::string& flag) {
  return std::regex_replace(flag, std::regex("-"), "\\-");
}

// Whether `name` occurs in `text` as a whole flag: not followed by more of a flag's characters
// (letters, digits, a hyphen, troff's escaped hyphen).
bool mentions(const std::string& text, const std::string& name) {
  for (std::size_t at = text.find(name); at != std::string::npos; at = text.find(name, at + 1)) {
    const std::size_t after = at + name.size();
    const bool more = after < text.size() && (std::isalnum(static_cast<unsigned char>(text[after])) ||
                                              text[after] == '-' || text.compare(after, 2, "\\-") == 0);
    if (!more) return true;
  }
  return false;
}

// Whether a table row of `section` has `key` in its second cell, the YAML key column (cells are
// separated by " | "; a '|' inside a cell is written `\|`).
bool in_yaml_column(const std::string& section, const std::string& key) {
  for (const std::string& line : test::split_lines(section)) {
    if (line.rfind("| ", 0) != 0) continue;
    const std::size_t begin = line.find(" | ");
    const std::size_t end = begin == std::string::npos ? begin : line.find(" | ", begin + 3);
    if (end == std::string::npos) continue;
    const std::string cell = line.substr(begin + 3, end - begin - 3);
    if (cell == "`" + key + "`" || cell.rfind("`" + key + "`,", 0) == 0 ||
        cell.find(", `" + key + "`") != std::string::npos)
      return true;
  }
  return false;
}

}  // namespace

TEST_CASE("user guide: the option tables are what s2s options-markdown prints", "[cli][docs]") {
  const std::string generated = generated_part(test::read_file(kGuide));
  REQUIRE_FALSE(generated.empty());
  const test::RunResult printed = test::run_s2s("options-markdown");
  REQUIRE(printed.exit_code == 0);
  INFO("docs/user-guide.md is out of date: run tools/docs/update_user_guide.sh build/s2s");
  CHECK(generated == printed.out);
}

TEST_CASE("user guide: every YAML key of the settings table is in its command's table",
          "[cli][docs]") {
  const std::string generated = generated_part(test::read_file(kGuide));
  for (const auto& [name, command] : {std::pair{"translate", Command::translate},
                                      std::pair{"score", Command::score}}) {
    const std::string section = command_section(generated, name);
    REQUIRE_FALSE(section.empty());
    for (const SettingRow& row : setting_rows(command)) {
      std::vector<std::string> keys = {row.key};
      if (!row.marian_key.empty()) keys.push_back(row.marian_key);
      for (const std::string& key : keys) {
        INFO(name << ": YAML key " << key);
        CHECK(in_yaml_column(section, key));
      }
    }
  }
}

TEST_CASE("user guide: every flag of --help is in the guide and in the man page", "[cli][docs]") {
  const std::string generated = generated_part(test::read_file(kGuide));
  const std::filesystem::path man =
      std::filesystem::path(test::s2s_binary()).parent_path() / "s2s.1";
  const std::string man_page = test::read_file(man);
  REQUIRE_FALSE(man_page.empty());
  for (const std::string& command : kCommands) {
    const std::string section = command_section(generated, command);
    REQUIRE_FALSE(section.empty());
    const std::vector<std::string> flags = help_flags(command);
    CHECK_FALSE(flags.empty());
    for (const std::string& flag : flags) {
      INFO(command << " " << flag);
      CHECK(mentions(section, flag));
      CHECK(mentions(man_page, troff(flag)));
    }
  }
}

}  // namespace s2s
