#include "options.h"

#include <iterator>
#include <string>

#include "s2s/core/error.h"

namespace s2s::app {

void add_option_flags(CLI::App& cmd, Command command, OptionFlags& flags) {
  flags.rows = setting_rows(command);
  flags.options.clear();
  for (const SettingRow& row : flags.rows) {
    const std::string names = row.short_flag + (row.short_flag.empty() ? "" : ",") + "--" +
                              row.key + (row.marian_key.empty() ? "" : ",--" + row.marian_key);
    const std::string help = row.help + " [default: " + row.default_value + "]";
    CLI::Option* option = nullptr;
    // A switch that is on by default takes a value to turn it off ("--protect off").
    if (row.kind == SettingKind::on_off && !row.has_bare_value) {
      option = cmd.add_flag(names, help);
    } else {
      // Values are kept as text and parsed by set_option, the same code that reads YAML.
      const CLI::callback_t keep_text = [](const CLI::results_t&) { return true; };
      option = cmd.add_option(names, keep_text, help);
      option->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
      switch (row.kind) {
        case SettingKind::whole_number:
          option->type_name("INT");
          break;
        case SettingKind::number:
          option->type_name("FLOAT");
          break;
        case SettingKind::format:
          option->check(CLI::IsMember(row.choices))->type_name("FORMAT");
          break;
        case SettingKind::long_lines:
          option->check(CLI::IsMember(row.choices))->type_name("MODE");
          break;
        case SettingKind::precision:
          option->type_name("PRECISION");
          break;
        case SettingKind::sampling:  // "topk 10": two words on the command line, one in
                                              // YAML
          option->type_name("MODE [N]")->expected(0, 2);
          option->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
          break;
        case SettingKind::alignment:
          option->type_name("hard|soft|T");
          break;
        case SettingKind::words:  // "lex.s2t 100 100": several words, one list in YAML
          option->type_name("FILE [N ...]")->expected(1, 4);
          option->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
          break;
        case SettingKind::text:
          option->type_name("TEXT");
          break;
        case SettingKind::on_off:
          option->type_name("on|off");
          break;
      }
      if (row.has_bare_value && row.kind != SettingKind::sampling)
        option->expected(0, 1);
    }
    flags.options.push_back(option);
  }
}

GivenSettings given_settings(const OptionFlags& flags) {
  GivenSettings given;
  for (std::size_t i = 0; i < flags.options.size(); ++i) {
    const CLI::Option* option = flags.options[i];
    if (option->count() == 0) continue;
    const SettingRow& row = flags.rows[i];
    std::string text = option->results().back();
    if (row.kind == SettingKind::sampling || row.kind == SettingKind::words) {  // words, joined
      text.clear();
      for (const std::string& word : option->results()) text += (text.empty() ? "" : " ") + word;
    }
    if (text.empty() && row.has_bare_value) text = row.bare_value;
    given.push_back({row.key, text, "--" + row.key});
  }
  return given;
}

void add_marian_flags(CLI::App& cmd, Command command, OptionFlags& flags) {
  for (const MarianFlag& marian : marian_flags(command)) {
    const std::string flag = "--" + marian.name;
    if (cmd.get_option_no_throw(flag) != nullptr) continue;
    const bool short_free =
        !marian.short_flag.empty() && cmd.get_option_no_throw(marian.short_flag) == nullptr;
    const std::string names = (short_free ? marian.short_flag + "," : "") + flag;
    CLI::callback_t take = [](const CLI::results_t&) { return true; };
    if (marian.refused) {
      const std::string why = flag + ": " + marian.what;
      take = [why](const CLI::results_t&) -> bool { throw UsageError(why); };
    }
    CLI::Option* option = cmd.add_option(names, take, marian.what)->group("");
    // Marian's switches also take true/false and its lists several values; none is required
    // (CLI11 could not name a hidden option in its message).
    option->expected(0, marian.takes_values ? 8 : 1)->allow_extra_args();
    if (!marian.refused) flags.marian_ignored.emplace_back(option, flag);
  }
}

std::vector<std::string> ignored_given(const OptionFlags& flags) {
  std::vector<std::string> given;
  for (const auto& [option, flag] : flags.marian_ignored)
    if (option->count() > 0) given.push_back(flag);
  return given;
}

void add_output_flags(CLI::App& cmd, std::string& output, std::string& shard, bool& resume,
                      const char* inputs) {
  cmd.add_option("-o,--output", output,
                 "Output file ('-' = stdout); with --shard also a folder or a name with {shard} "
                 "[default: -]")
      ->type_name("FILE");
  cmd.add_option("--shard", shard,
                 "Only shard K (0-based) of N of the input file (-i FILE, not stdin): the lines "
                 "starting in its K-th N-th by bytes; the shards' outputs, concatenated in order, "
                 "equal the whole run's. -o FOLDER writes FOLDER/<input name>.KKKKK-of-NNNNN, "
                 "and {shard} in -o is replaced by KKKKK-of-NNNNN [default: none: the whole "
                 "input]")
      ->type_name("K/N");
  cmd.add_flag("--resume", resume,
               std::string("Keep a journal next to the output (OUT.s2s-journal) and continue an "
                           "interrupted run where it stopped: same command line plus --resume; "
                           "refused when the ") +
                   inputs + ", model or options changed; a complete output is left as it is");
}

}  // namespace s2s::app
