// The weights of a Hugging Face folder: model.safetensors, or the shards that
// model.safetensors.index.json lists (save_pretrained's form for big models:
// {"metadata": {...}, "weight_map": {"<tensor>": "model-00001-of-00002.safetensors", ...}}).
// Every shard is opened and checked; a tensor the index places in a shard that lacks it, or one
// that two shards hold, is a ModelError naming the index.
#pragma once

#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "s2s/formats/safetensors.h"

namespace s2s::formats {

class SafetensorsSet {
 public:
  // ModelError naming the folder when it has neither file.
  explicit SafetensorsSet(const std::filesystem::path& folder);

  // True when the folder has model.safetensors or model.safetensors.index.json.
  static bool present(const std::filesystem::path& folder);

  bool contains(const std::string& name) const { return owner_.count(name) != 0; }
  Tensor read_tensor(const std::string& name) const;
  std::vector<std::string> names() const;
  // model.safetensors, or the index file: what errors and `s2s info` name.
  const std::string& path() const { return path_; }
  std::size_t shard_count() const { return shards_.size(); }

 private:
  std::string path_;
  std::vector<std::unique_ptr<SafetensorsFile>> shards_;
  std::map<std::string, const SafetensorsFile*> owner_;
};

}  // namespace s2s::formats
