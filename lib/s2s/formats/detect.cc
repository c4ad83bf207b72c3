#include "s2s/formats/detect.h"

#include <cstdlib>
#include <filesystem>
#include <vector>

#include "s2s/core/allocator.h"
#include "s2s/formats/hf_m2m100.h"
#include "s2s/formats/hf_marian.h"
#include "s2s/formats/marian.h"
#include "s2s/formats/model_parts.h"

namespace s2s::formats {
namespace fs = std::filesystem;
namespace {

// The shipped default model (models/<name>).
constexpr const char* kDefaultModel = "en-de";

}  // namespace

std::shared_ptr<const model::Model> load_model(const std::string& path, const SpmPaths& spm,
                                               ops::Packing packing, LoadFor purpose) {
  std::error_code ec;
  fs::path folder(path);
  if (!fs::exists(folder, ec)) throw ModelError(path + ": no such model folder");
  if (fs::is_regular_file(folder, ec)) folder = folder.parent_path();
  if (folder.empty()) folder = ".";
  // Each weight read is freed as its packed copy is made: the next copy reuses its memory.
  const ReuseFreedBuffers reuse;
  // Each reader describes the model's parts; the Model is built from them in one place.
  if (looks_like_marian(folder)) return assemble_model(read_marian(folder), packing);
  if (looks_like_hf_m2m100(folder)) return assemble_model(read_hf_m2m100(folder), packing);
  if (looks_like_hf_marian(folder)) return assemble_model(read_hf_marian(folder), packing);
  if (looks_like_ct2(folder)) return assemble_model(read_ct2(folder, spm, purpose), packing);
  throw ModelError(path + ": not a model folder (looked for a Marian decoder.yml or .npz, a Hugging "
                   "Face config.json with model.safetensors, or a CTranslate2 model.bin)");
}

namespace {

// Where s2s looks for what it ships (models/, configs/), first match wins: next to the
// executable (a build folder, with its links to the checkout), beside its folder (a binary in
// the checkout), the install prefix it runs from, and last where `cmake --install` put them, so
// that a program linking the library finds them too.
std::vector<fs::path> shipped_folders(const std::string& executable, const std::string& name) {
  std::error_code ec;
  const fs::path exe_dir = fs::weakly_canonical(fs::path(executable), ec).parent_path();
  return {exe_dir / name, exe_dir.parent_path() / name,
          exe_dir.parent_path() / "share" / "s2s" / name, fs::path(S2S_INSTALL_DATADIR) / name};
}

}  // namespace

std::string default_model_path(const std::string& executable) {
  if (const char* env = std::getenv("S2S_MODEL"); env && *env) return env;
  std::error_code ec;
  for (const fs::path& folder : shipped_folders(executable, "models"))
    if (fs::is_directory(folder / kDefaultModel, ec)) return (folder / kDefaultModel).string();
  throw UsageError(std::string("no model given (-m) and the default model '") + kDefaultModel +
                   "' was not found next to the executable nor in " S2S_INSTALL_DATADIR
                   "; set S2S_MODEL or pass -m FOLDER");
}

std::string config_path(const std::string& given, const std::string& executable) {
  std::error_code ec;
  if (fs::exists(given, ec) || given.find('/') != std::string::npos) return given;
  for (const fs::path& folder : shipped_folders(executable, "configs")) {
    const fs::path file = folder / (given + ".yml");
    if (fs::is_regular_file(file, ec)) return file.string();
  }
  throw UsageError("--config " + given + ": no such file, nor a shipped config " + given +
                   ".yml (those are in " S2S_INSTALL_DATADIR "/configs)");
}

}  // namespace s2s::formats
