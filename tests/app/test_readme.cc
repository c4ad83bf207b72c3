// README.md's examples with the shipped model run as written (issue 41): each `$ command` line of
// a ```sh block, with the lines after it as its expected output, and the library example's input
// lines against the output its comment gives.
#include <catch2/catch.hpp>
#include <regex>
#include <string>
#include <vector>

#include "cli_runner.h"
#include "test_utils.h"

namespace s2s {
namespace {

const std::string kRoot = test::data_path("../..");

struct Example {
  std::string command;  // as README writes it, after "$ "
  std::string output;   // the lines after it, each with '\n'
};

// The `$` lines of README's ```sh blocks and what follows each up to the next `$` or the block's
// end.
std::vector<Example> shell_examples(const std::string& readme) {
  std::vector<Example> examples;
  bool in_block = false;
  bool in_example = false;  // after a `$` line of the current block
  for (const std::string& line : test::split_lines(readme)) {
    if (line.rfind("```", 0) == 0) {
      in_block = line == "```sh";
      in_example = false;
    } else if (in_block && line.rfind("$ ", 0) == 0) {
      examples.push_back({line.substr(2), ""});
      in_example = true;
    } else if (in_example) {
      examples.back().output += line + "\n";
    }
  }
  return examples;
}

// `command` with each `s2s` that starts a pipeline stage replaced by the built binary.
std::string with_binary(const std::string& command) {
  return std::regex_replace(command, std::regex(R"((^|\| )s2s )"),
                            std::string("$1'") + test::s2s_binary() + "' ");
}

// The C++ strings of `text` ("a", "" ...), in order.
std::vector<std::string> quoted(const std::string& text) {
  std::vector<std::string> strings;
  const std::regex string_literal(R"re("([^"]*)")re");
  for (std::sregex_iterator it(text.begin(), text.end(), string_literal), end; it != end; ++it)
    strings.push_back((*it)[1]);
  return strings;
}

}  // namespace

TEST_CASE("README: the $ examples print what README shows", "[cli]") {
  const std::string readme = test::read_file(kRoot + "/README.md");
  const std::vector<Example> examples = shell_examples(readme);
  REQUIRE(!examples.empty());
  for (const Example& example : examples) {
    INFO(example.command);
    const auto r = test::run_shell(with_binary(example.command), kRoot);
    INFO(r.err);
    CHECK(r.exit_code == 0);
    CHECK(r.out == example.output);
  }
}

TEST_CASE("README: the library example's lines give the output its comment says", "[cli]") {
  const std::string readme = test::read_file(kRoot + "/README.md");
  std::smatch lines, comment;
  REQUIRE(std::regex_search(readme, lines, std::regex(R"(std::vector<std::string> lines = \{([^}]*)\};)")));
  REQUIRE(std::regex_search(readme, comment, std::regex(R"(// With the shipped model: ([^\n]*))")));
  std::string input, expected;
  for (const std::string& line : quoted(lines[1])) input += line + "\n";
  for (const std::string& line : quoted(comment[1])) expected += line + "\n";
  REQUIRE(test::count_lines(input) == 3);
  // The example's settings: beam-size 4, two threads.
  const auto r = test::run_s2s("translate -m '" + kRoot + "/models/en-de' -b 4 --threads 2", input);
  INFO(r.err);
  CHECK(r.exit_code == 0);
  CHECK(r.out == expected);
}

}  // namespace s2s
