// s2s: translate, score and inspect Transformer translation models on the CPU.
// Every error reaches the one catch block here: one line on stderr (and in the --log file,
// through s2s/core/log.h), exit 2 for usage errors and 1 for everything else (model, input,
// internal), 128 + the signal after Ctrl-C (interrupt.h).
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <exception>
#include <string>

#include "commands.h"
#include "interrupt.h"
#include "usage_errors.h"
#include "s2s/core/error.h"
#include "s2s/core/log.h"
#include "s2s/s2s.h"

namespace {

// Standard output is written through stdio/iostreams by info and --help: a full disk or a closed
// file shows only when it is flushed. 0, or 1 with the error printed.
int finish_output() {
  std::cout.flush();
  if (std::fflush(stdout) == 0 && !std::ferror(stdout) && std::cout.good()) return 0;
  s2s::log::error(std::string("cannot write output: ") + std::strerror(errno));
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  s2s::app::start_signal_watcher();  // before any other thread starts: they inherit the mask
  s2s::keep_large_allocations_mapped();
  CLI::App app{"s2s: fast CPU translation with Marian / OPUS-MT models"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "s2s 0.1.0");
  s2s::app::set_translate_command(app);
  s2s::app::set_score_command(app);
  s2s::app::set_info_command(app);
  s2s::app::set_progress_command(app);
  s2s::app::set_serve_command(app);
  s2s::app::set_options_markdown_command(app);  // hidden: docs/user-guide.md's tables
  try {
    const auto named = [&](const CLI::App* sub) { return argc > 1 && sub->get_name() == argv[1]; };
    if (argc > 1 && argv[1][0] != '-' &&
        static_cast<const CLI::App&>(app).get_subcommands(std::function<bool(const CLI::App*)>(named)).empty())
      throw s2s::UsageError(std::string("unknown subcommand '") + argv[1] +
                            "' (s2s has translate, score, info, progress and serve; see s2s --help)");
    app.parse(argc, argv);  // subcommand callbacks run here
    return finish_output();
  } catch (const CLI::Success& e) {
    const int code = app.exit(e);  // --help, --version
    return code != 0 ? code : finish_output();
  } catch (const CLI::ParseError& e) {
    s2s::log::error(s2s::app::usage_message(e, app));
    return 2;
  } catch (const s2s::UsageError& e) {
    s2s::log::error(e.what());
    return 2;
  } catch (const s2s::app::Interrupted& e) {
    s2s::log::notice(e.what());
    return e.exit_code();
  } catch (const std::exception& e) {
    s2s::log::error(e.what());
    return 1;
  }
}
