// One set_*_command per subcommand; each registers its options and a callback on the CLI11 app.
// The commands are built on the library's installed headers only (.ci/check_layers.sh).
#pragma once

#include <CLI/CLI.hpp>
#include <string>

namespace s2s::app {

void set_info_command(CLI::App& app);
void set_translate_command(CLI::App& app);
void set_score_command(CLI::App& app);
void set_progress_command(CLI::App& app);
void set_serve_command(CLI::App& app);
void set_options_markdown_command(CLI::App& app);  // hidden

// -m/--model (also Marian's --models: a model file names its folder) into `model`, and Marian's
// -v/--vocabs, which s2s refuses saying where it takes vocabularies from.
void add_model_flags(CLI::App& cmd, std::string& model);

// --log FILE (Marian's): from the moment the option is read, every message on stderr but the
// progress line is also appended to FILE (s2s/core/log.h). Registered before the other options
// so that their errors reach the file too.
void add_log_flag(CLI::App& cmd);

}  // namespace s2s::app
