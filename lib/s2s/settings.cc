#include "s2s/settings.h"

#include <dlfcn.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iterator>
#include <system_error>

#include "s2s/core/error.h"
#include "s2s/formats/detect.h"
#include "s2s/pipeline/long_lines.h"
#include "s2s/pipeline/marian_options.h"
#include "s2s/pipeline/output.h"
#include "s2s/pipeline/settings.h"

namespace s2s {
namespace {

namespace fs = std::filesystem;

pipeline::Command internal(Command command) {
  return command == Command::translate ? pipeline::Command::translate : pipeline::Command::score;
}

template <std::size_t N>
std::vector<std::string> names(const char* const (&list)[N]) {
  return std::vector<std::string>(std::begin(list), std::end(list));
}

SettingRow public_row(const pipeline::OptionRow& row) {
  SettingRow out;
  out.key = row.key;
  out.short_flag = row.short_flag;
  out.marian_key = row.marian_key != nullptr ? row.marian_key : "";
  out.has_bare_value = row.bare_value != nullptr;
  out.bare_value = row.bare_value != nullptr ? row.bare_value : "";
  out.kind = static_cast<SettingKind>(row.kind);
  out.help = row.help;
  out.default_value = row.default_value;
  if (row.kind == pipeline::OptionKind::format) out.choices = names(pipeline::kOutputFormatNames);
  if (row.kind == pipeline::OptionKind::long_lines) out.choices = names(pipeline::kLongLinesNames);
  return out;
}

// The file this code was loaded from: libs2s.so when a program links the shared library, the
// program itself when it links the static one. dladdr names the program as it was started
// (argv[0]: "s2s" when found through PATH, relative to the directory it was started from) or not
// at all; a shared object by the path the dynamic linker opened, which always holds a '/'.
struct Origin {
  std::string path;
  bool shared_library = false;
};

Origin origin_of_this_code() {
  std::error_code ec;
  const fs::path self = fs::read_symlink("/proc/self/exe", ec);
  Dl_info info{};
  if (::dladdr(reinterpret_cast<void*>(&origin_of_this_code), &info) != 0 &&
      info.dli_fname != nullptr && std::strchr(info.dli_fname, '/') != nullptr) {
    const fs::path file = fs::weakly_canonical(info.dli_fname, ec);
    if (!ec && (self.empty() || file != fs::weakly_canonical(self, ec)))
      return {file.string(), true};
  }
  return {self.string(), false};
}

// What the shipped-folder search of formats/detect.h takes as "the executable": the program, or
// for a shared object (libs2s.so in PREFIX/lib or PREFIX/lib/x86_64-linux-gnu, the Python
// module in PREFIX/lib/python3.X/dist-packages/s2s, either in a build folder) a file in the
// nearest folder above it that holds what s2s ships: PREFIX/bin, or the build folder itself.
std::string anchor() {
  const Origin origin = origin_of_this_code();
  if (!origin.shared_library) return origin.path;
  std::error_code ec;
  const fs::path library_dir = fs::path(origin.path).parent_path();
  for (fs::path dir = library_dir; !dir.empty(); dir = dir.parent_path()) {
    if (fs::is_directory(dir / "share" / "s2s", ec)) return (dir / "bin" / "s2s").string();
    if (fs::is_directory(dir / "models", ec) && fs::is_directory(dir / "configs", ec))
      return (dir / "s2s").string();
    if (dir == dir.parent_path()) break;
  }
  return (library_dir / "s2s").string();
}

}  // namespace

std::vector<SettingRow> setting_rows(Command command) {
  std::vector<SettingRow> rows;
  for (std::size_t i = 0; i < pipeline::option_count(internal(command)); ++i)
    rows.push_back(public_row(pipeline::option_row(internal(command), i)));
  return rows;
}

bool applies_from_model(const std::string& key) { return pipeline::applies_from_model(key); }

std::vector<MarianFlag> marian_flags(Command command) {
  const unsigned tool = command == Command::translate ? pipeline::kDecoder : pipeline::kScorer;
  std::vector<MarianFlag> flags;
  for (const pipeline::MarianOption& m : pipeline::marian_options()) {
    if ((m.tools & tool) == 0 || m.use == pipeline::MarianUse::supported) continue;
    flags.push_back({m.name, m.short_flag, m.use == pipeline::MarianUse::refused, m.takes_values,
                     m.what});
  }
  return flags;
}

std::string default_model_folder() {
  const Origin origin = origin_of_this_code();
  std::string path;
  try {
    path = formats::default_model_path(anchor());
  } catch (const UsageError&) {
    if (!origin.shared_library) throw;  // the s2s command's own message names -m
    throw UsageError("no model folder given and the default model was not found next to " +
                     origin.path + " nor in the share/s2s/models of its prefix; set S2S_MODEL " +
                     "or give a model folder");
  }
  // A folder from the environment was not given by the caller: say where it came from.
  const char* env = std::getenv("S2S_MODEL");
  std::error_code ec;
  if (env != nullptr && path == env && !fs::is_directory(path, ec))
    throw ModelError("S2S_MODEL=" + path + ": no such model folder");
  return path;
}

std::string config_file(const std::string& name) {
  return name.empty() ? name : formats::config_path(name, anchor());
}

}  // namespace s2s
