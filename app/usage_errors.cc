#include "usage_errors.h"

#include <cctype>
#include <regex>
#include <vector>


namespace s2s::app {
namespace {

// "s2s translate": the subcommand being parsed.
std::string command_name(const CLI::App& app) {
  std::string name = "s2s";
  for (const CLI::App* sub : app.get_subcommands()) name += " " + sub->get_name();
  return name;
}

bool is_flag(const std::string& word) {
  return word.size() > 1 && word[0] == '-' && !(std::isdigit(static_cast<unsigned char>(word[1])));
}

// What a word on the command line that is not an option's value means to do, by command.
std::string positional_hint(const std::string& command) {
  if (command == "s2s translate")
    return "s2s translate reads standard input; to translate a file use -i FILE";
  if (command == "s2s score")
    return "give the files with --source FILE --target FILE (or -t SOURCE TARGET), or "
           "source<TAB>target lines with -i FILE";
  if (command == "s2s info") return "give the model folder with -m FOLDER";
  return "every option is a flag";
}

// Arguments nobody took, in command-line order: unknown flags (their values are dropped from
// the message) or a stray word.
std::string extras_message(const CLI::App& app, const std::string& command) {
  const std::vector<std::string> extras = app.remaining(true);
  if (extras.empty()) return "unexpected argument";
  if (!is_flag(extras.front()))
    return "unexpected argument '" + extras.front() + "': " + positional_hint(command);
  std::vector<std::string> flags;
  for (const std::string& word : extras)
    if (is_flag(word)) flags.push_back(word.substr(0, word.find('=')));
  std::string list;
  for (const std::string& flag : flags) list += (list.empty() ? "" : ", ") + flag;
  return std::string(flags.size() == 1 ? "unknown option " : "unknown options ") + list;
}

// CLI11's "NAME: At Most 1 required but received 2" and its other counts.
std::string count_message(const std::string& what) {
  std::smatch m;
  if (std::regex_match(what, m, std::regex(R"((\S+): At Most 1 required but received (\d+))"))) {
    const std::string name = m[1];
    if (name == "--input" || name == "--output")
      return name + " given " + m[2].str() + " times: s2s " +
             (name == "--input" ? "reads one input (cat several files into it, or run s2s once "
                                  "per file)"
                                : "writes one output") +
             "; give it once";
    return name + " given " + m[2].str() + " times: give it once";
  }
  if (std::regex_match(what, m, std::regex(R"((\S+): At Most (\d+) required but received (\d+))")))
    return m[1].str() + " takes at most " + m[2].str() + " values, got " + m[3].str();
  if (std::regex_match(what, m, std::regex(R"((\S+): At least (\d+) required but received (\d+))")))
    return m[1].str() + " needs at least " + m[2].str() + " values, got " + m[3].str();
  if (std::regex_match(what, m, std::regex(R"((\S+): \d+ required (\S+) missing)")))
    return m[1].str() + " needs a value (" + m[2].str() + ")";
  if (std::regex_match(what, m, std::regex(R"(Expected exactly (\d+) arguments to (\S+), got (\d+))")))
    return m[2].str() + " takes " + m[1].str() + " values, got " + m[3].str();
  return what;
}

// CLI11's "--format: xml not in {text,nbest,jsonl}" (a value outside a flag's choices).
std::string choice_message(const std::string& what) {
  std::smatch m;
  if (!std::regex_match(what, m, std::regex(R"((\S+): (.*) not in \{(.*)\})"))) return what;
  return m[1].str() + ": '" + m[2].str() + "' is not one of " +
         std::regex_replace(m[3].str(), std::regex(","), ", ");
}

}  // namespace

std::string usage_message(const CLI::ParseError& error, const CLI::App& app) {
  const std::string command = command_name(app);
  std::string message = error.what();
  const bool extras = dynamic_cast<const CLI::ExtrasError*>(&error) != nullptr;
  // A required argument missing because an unknown one came instead: the unknown one is the news.
  const bool required = dynamic_cast<const CLI::RequiredError*>(&error) != nullptr;
  if (extras || (required && !app.remaining(true).empty()))
    message = extras_message(app, command);
  else if (required && message == "paths is required")  // s2s progress without OUT...
    message = "give the outputs to look at: s2s progress OUT... (files of --resume runs, or "
              "folders of them)";
  else if (dynamic_cast<const CLI::ValidationError*>(&error) != nullptr)
    message = choice_message(message);
  else if (dynamic_cast<const CLI::ArgumentMismatch*>(&error) != nullptr)
    message = count_message(message);
  return message + " (see " + command + " --help)";
}

}  // namespace s2s::app
