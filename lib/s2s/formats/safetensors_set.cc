#include "s2s/formats/safetensors_set.h"

#include <fstream>
#include <nlohmann/json.hpp>

#include "s2s/core/error.h"

namespace s2s::formats {
namespace fs = std::filesystem;
namespace {

const char* kSingle = "model.safetensors";
const char* kIndex = "model.safetensors.index.json";

// The index's weight_map: tensor -> shard file name.
std::map<std::string, std::string> read_weight_map(const fs::path& index) {
  std::ifstream in(index);
  if (!in) throw ModelError(index.string() + ": cannot be read");
  nlohmann::json json;
  try {
    json = nlohmann::json::parse(in);
  } catch (const nlohmann::json::exception& e) {
    throw ModelError(index.string() + ": not valid JSON: " + e.what());
  }
  const auto map = json.find("weight_map");
  if (!json.is_object() || map == json.end() || !map->is_object())
    throw ModelError(index.string() + ": no \"weight_map\" object");
  std::map<std::string, std::string> out;
  for (const auto& [tensor, file] : map->items()) {
    if (!file.is_string() || file.get<std::string>().find('/') != std::string::npos)
      throw ModelError(index.string() + ": the shard of '" + tensor + "' is " + file.dump() +
                       ", expected a file name in the folder");
    out.emplace(tensor, file.get<std::string>());
  }
  return out;
}

}  // namespace

bool SafetensorsSet::present(const fs::path& folder) {
  std::error_code ec;
  return fs::is_regular_file(folder / kSingle, ec) || fs::is_regular_file(folder / kIndex, ec);
}

SafetensorsSet::SafetensorsSet(const fs::path& folder) {
  std::error_code ec;
  if (fs::is_regular_file(folder / kSingle, ec)) {
    path_ = (folder / kSingle).string();
    shards_.push_back(std::make_unique<SafetensorsFile>(path_));
    for (const std::string& name : shards_[0]->names()) owner_[name] = shards_[0].get();
    return;
  }
  if (!fs::is_regular_file(folder / kIndex, ec))
    throw ModelError(folder.string() + ": no " + kSingle + " nor " + kIndex);
  path_ = (folder / kIndex).string();
  const std::map<std::string, std::string> weight_map = read_weight_map(folder / kIndex);
  std::map<std::string, const SafetensorsFile*> by_file;
  for (const auto& [tensor, file] : weight_map) {
    if (by_file.count(file) == 0) {
      shards_.push_back(std::make_unique<SafetensorsFile>((folder / file).string()));
      by_file[file] = shards_.back().get();
    }
    if (!by_file[file]->contains(tensor))
      throw ModelError(path_ + ": places '" + tensor + "' in " + file + ", which does not hold it");
  }
  for (const auto& shard : shards_)
    for (const std::string& name : shard->names()) {
      if (owner_.count(name) != 0)
        throw ModelError(path_ + ": tensor '" + name + "' is in two shards");
      owner_[name] = shard.get();
    }
}

Tensor SafetensorsSet::read_tensor(const std::string& name) const {
  const auto it = owner_.find(name);
  if (it == owner_.end()) throw ModelError(path_ + ": no tensor '" + name + "'");
  return it->second->read_tensor(name);
}

std::vector<std::string> SafetensorsSet::names() const {
  std::vector<std::string> out;
  for (const auto& [name, shard] : owner_) out.push_back(name);
  return out;
}

}  // namespace s2s::formats
