#include "options.h"

#include <iterator>
#include <string>

#include "s2s/core/error.h"
#include "s2s/core/log.h"
#include "s2s/core/strings.h"

namespace s2s::app {

void add_option_flags(CLI::App& cmd, pipeline::Command command, OptionFlags& flags) {
  flags.command = command;
  flags.options.clear();
  for (std::size_t i = 0; i < pipeline::option_count(command); ++i) {
    const pipeline::OptionRow row = pipeline::option_row(command, i);
    const std::string names = std::string(row.short_flag) + (*row.short_flag ? "," : "") + "--" +
                              row.key + (row.marian_key ? std::string(",--") + row.marian_key : "");
    const std::string help = std::string(row.help) + " [default: " + row.default_value + "]";
    CLI::Option* option = nullptr;
    // A switch that is on by default takes a value to turn it off ("--protect off").
    if (row.kind == pipeline::OptionKind::on_off && row.bare_value == nullptr) {
      option = cmd.add_flag(names, help);
    } else {
      // Values are kept as text and parsed by set_option, the same code that reads YAML.
      const CLI::callback_t keep_text = [](const CLI::results_t&) { return true; };
      option = cmd.add_option(names, keep_text, help);
      option->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
      switch (row.kind) {
        case pipeline::OptionKind::whole_number:
          option->type_name("INT");
          break;
        case pipeline::OptionKind::number:
          option->type_name("FLOAT");
          break;
        case pipeline::OptionKind::format:
          option
              ->check(
                  CLI::IsMember(std::vector<std::string>(std::begin(pipeline::kOutputFormatNames),
                                                         std::end(pipeline::kOutputFormatNames))))
              ->type_name("FORMAT");
          break;
        case pipeline::OptionKind::long_lines:
          option
              ->check(CLI::IsMember(std::vector<std::string>(std::begin(pipeline::kLongLinesNames),
                                                             std::end(pipeline::kLongLinesNames))))
              ->type_name("MODE");
          break;
        case pipeline::OptionKind::precision:
          option->type_name("PRECISION");
          break;
        case pipeline::OptionKind::sampling:  // "topk 10": two words on the command line, one in
                                              // YAML
          option->type_name("MODE [N]")->expected(0, 2);
          option->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
          break;
        case pipeline::OptionKind::alignment:
          option->type_name("hard|soft|T");
          break;
        case pipeline::OptionKind::text:
          option->type_name("TEXT");
          break;
        case pipeline::OptionKind::on_off:
          option->type_name("on|off");
          break;
      }
      if (row.bare_value != nullptr && row.kind != pipeline::OptionKind::sampling)
        option->expected(0, 1);
    }
    flags.options.push_back(option);
  }
}

namespace {

template <typename Settings>
void apply_rows(const OptionFlags& flags, Settings& settings) {
  S2S_CHECK(flags.options.size() == pipeline::option_count(flags.command),
            "one CLI option per table row");
  for (std::size_t i = 0; i < flags.options.size(); ++i) {
    const CLI::Option* option = flags.options[i];
    if (option->count() == 0) continue;
    const pipeline::OptionRow row = pipeline::option_row(flags.command, i);
    std::string text = option->results().back();
    if (row.kind == pipeline::OptionKind::sampling) {  // its words, joined as YAML writes them
      text.clear();
      for (const std::string& word : option->results()) text += (text.empty() ? "" : " ") + word;
    }
    if (text.empty() && row.bare_value != nullptr) text = row.bare_value;
    pipeline::set_option(i, text, std::string("--") + row.key, settings);
  }
}

}  // namespace

void apply_flags(const OptionFlags& flags, pipeline::TranslateSettings& settings) {
  S2S_CHECK(flags.command == pipeline::Command::translate, "translate flags");
  apply_rows(flags, settings);
}

void apply_flags(const OptionFlags& flags, pipeline::ScoreSettings& settings) {
  S2S_CHECK(flags.command == pipeline::Command::score, "score flags");
  apply_rows(flags, settings);
}

void add_marian_flags(CLI::App& cmd, pipeline::MarianTool tool, OptionFlags& flags) {
  for (const pipeline::MarianOption& marian : pipeline::marian_options()) {
    const std::string flag = std::string("--") + marian.name;
    if ((marian.tools & tool) == 0 || marian.use == pipeline::MarianUse::supported ||
        cmd.get_option_no_throw(flag) != nullptr)
      continue;
    const bool short_free = *marian.short_flag && cmd.get_option_no_throw(marian.short_flag) == nullptr;
    const std::string names = (short_free ? std::string(marian.short_flag) + "," : "") + flag;
    CLI::callback_t take = [](const CLI::results_t&) { return true; };
    if (marian.use == pipeline::MarianUse::refused) {
      const std::string why = flag + ": " + marian.what;
      take = [why](const CLI::results_t&) -> bool { throw UsageError(why); };
    }
    CLI::Option* option = cmd.add_option(names, take, marian.what)->group("");
    // Marian's switches also take true/false and its lists several values; none is required
    // (CLI11 could not name a hidden option in its message).
    option->expected(0, marian.takes_values ? 8 : 1)->allow_extra_args();
    if (marian.use == pipeline::MarianUse::ignored) flags.marian_ignored.emplace_back(option, flag);
  }
}

void note_ignored(const OptionFlags& flags, const pipeline::ConfigFileNotes& config,
                  const std::string& config_path) {
  std::vector<std::string> given, parts;
  for (const auto& [option, flag] : flags.marian_ignored)
    if (option->count() > 0) given.push_back(flag);
  if (!given.empty()) parts.push_back(join(given, ", "));
  if (!config.ignored.empty()) parts.push_back(join(config.ignored, ", ") + " in " + config_path);
  if (parts.empty() || log::level() < log::Level::warning) return;
  log::notice("ignored, as they do not apply to s2s on the CPU (docs/marian-options.md says "
              "why): " + join(parts, "; "));
}

}  // namespace s2s::app
