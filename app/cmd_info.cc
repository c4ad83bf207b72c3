// s2s info: what a model is, and whether it is sound (s2s.h describe_model). A folder that lacks
// only what translation needs is still described (exit 0: the description is what was asked
// for).
#include <cstdio>
#include <memory>

#include "commands.h"
#include "s2s/s2s.h"
#include "s2s/settings.h"

namespace s2s::app {
namespace {

struct InfoArgs {
  std::string model;
  std::string source_spm, target_spm;
};

void run_info(const InfoArgs& args) {
  const std::string folder = args.model.empty() ? default_model_folder() : args.model;
  std::fputs(describe_model(folder, args.source_spm, args.target_spm).c_str(), stdout);
}

}  // namespace

void set_info_command(CLI::App& app) {
  auto args = std::make_shared<InfoArgs>();
  CLI::App* cmd = app.add_subcommand("info", "Describe a model and check its files");
  add_model_flags(*cmd, args->model);
  cmd->add_option("--source-spm", args->source_spm,
                  "Source SentencePiece model, for model folders without one (CTranslate2)");
  cmd->add_option("--target-spm", args->target_spm,
                  "Target SentencePiece model, for model folders without one (CTranslate2)");
  cmd->callback([args]() { run_info(*args); });
}

}  // namespace s2s::app
