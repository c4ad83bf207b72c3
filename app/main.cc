// s2s: translate, score and inspect Transformer translation models on the CPU.
// Every error reaches the one catch block here: one line on stderr, exit 2 for usage errors and
// 1 for everything else (model, input, internal), 128 + the signal after Ctrl-C (interrupt.h).
#include <cstdio>
#include <exception>
#include <string>

#include "commands.h"
#include "interrupt.h"
#include "s2s/core/allocator.h"
#include "s2s/core/error.h"

int main(int argc, char** argv) {
  s2s::app::start_signal_watcher();  // before any other thread starts: they inherit the mask
  s2s::keep_large_allocations_mapped();
  CLI::App app{"s2s: fast CPU translation with Marian / OPUS-MT models"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "s2s 0.1.0");
  s2s::app::Context context{argc > 0 ? argv[0] : "s2s"};
  s2s::app::set_translate_command(app, context);
  s2s::app::set_score_command(app, context);
  s2s::app::set_info_command(app, context);
  try {
    app.parse(argc, argv);  // subcommand callbacks run here
    return 0;
  } catch (const CLI::Success& e) {
    return app.exit(e);  // --help, --version
  } catch (const CLI::ParseError& e) {
    std::fprintf(stderr, "s2s: error: %s (see s2s --help)\n", e.what());
    return 2;
  } catch (const s2s::UsageError& e) {
    std::fprintf(stderr, "s2s: error: %s\n", e.what());
    return 2;
  } catch (const s2s::app::Interrupted& e) {
    std::fprintf(stderr, "s2s: %s\n", e.what());
    return e.exit_code();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "s2s: error: %s\n", e.what());
    return 1;
  }
}
