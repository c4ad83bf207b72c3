// What the Hugging Face readers (hf_marian, hf_m2m100) share: reading config.json-style files
// with errors naming them, and mapping HF module names to canonical weight names
// (layers/weights.h). `Source` is anything with read_tensor(name): a SafetensorsFile or a
// SafetensorsSet.
#pragma once

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "s2s/core/error.h"
#include "s2s/core/strings.h"
#include "s2s/layers/weights.h"
#include "s2s/model/model.h"

namespace s2s::formats::hf {

inline nlohmann::json read_json(const std::filesystem::path& path) {
  std::ifstream in(path);
  if (!in) throw ModelError(path.string() + ": not found");
  try {
    return nlohmann::json::parse(in);
  } catch (const nlohmann::json::exception& e) {
    throw ModelError(path.string() + ": not valid JSON: " + e.what());
  }
}

// A config value, `fallback` when absent or null; a ModelError naming the file and key when it
// has the wrong type.
template <typename T>
T value(const nlohmann::json& config, const char* key, T fallback,
        const std::filesystem::path& path) {
  const auto it = config.find(key);
  if (it == config.end() || it->is_null()) return fallback;
  try {
    return it->get<T>();
  } catch (const nlohmann::json::exception&) {
    throw ModelError(path.string() + ": '" + key + "' has an unexpected value " + it->dump());
  }
}

// nn.Linear `hf` (weight [out, in], bias [out]) -> canonical `c`/{weight,bias}.
template <typename Source>
void map_linear(layers::WeightStore& w, const Source& st, const std::string& hf,
                const std::string& c) {
  w.add(c + "/weight", st.read_tensor(hf + ".weight"), ops::WeightLayout::out_in, hf + ".weight");
  w.add(c + "/bias", st.read_tensor(hf + ".bias"), ops::WeightLayout::in_out, hf + ".bias");
}

// nn.LayerNorm `hf` -> canonical `c`/{scale,bias}.
template <typename Source>
void map_norm(layers::WeightStore& w, const Source& st, const std::string& hf,
              const std::string& c) {
  w.add(c + "/scale", st.read_tensor(hf + ".weight"), ops::WeightLayout::in_out, hf + ".weight");
  w.add(c + "/bias", st.read_tensor(hf + ".bias"), ops::WeightLayout::in_out, hf + ".bias");
}

// BartAttention-style module (q_proj, k_proj, v_proj, out_proj) -> canonical q, k, v, o.
template <typename Source>
void map_attention(layers::WeightStore& w, const Source& st, const std::string& hf,
                   const std::string& c) {
  for (const auto& [from, to] : {std::pair{"q_proj", "q"}, {"k_proj", "k"}, {"v_proj", "v"},
                                 {"out_proj", "o"}})
    map_linear(w, st, hf + "." + from, c + "/" + to);
}

// A ModelError naming `path` when the file holds a tensor the model did not take and that
// `ignorable(name)` does not excuse (tied copies, stored sinusoid tables).
template <typename Source, typename Ignorable>
void check_all_used(const Source& st, const layers::WeightStore& w, const Ignorable& ignorable,
                    const std::string& path) {
  std::vector<std::string> unexpected;
  for (const std::string& name : st.names())
    if (!w.contains_origin(name) && !ignorable(name)) unexpected.push_back(name);
  if (!unexpected.empty())
    throw ModelError(path + ": unexpected tensors: " + join(unexpected, ", "));
}

// Generation defaults as HF's generate() would use them: num_beams from generation_config.json
// (else config.json), and <unk> allowed (HF does not suppress it).
inline void add_generation_defaults(const std::filesystem::path& folder,
                                    const nlohmann::json& config_json,
                                    const std::filesystem::path& config_path,
                                    model::ModelInfo& info) {
  nlohmann::json generation = config_json;
  info.search_defaults_source = config_path.string();
  std::error_code ec;
  if (std::filesystem::exists(folder / "generation_config.json", ec)) {
    generation = read_json(folder / "generation_config.json");
    info.search_defaults_source = (folder / "generation_config.json").string();
  }
  if (generation.contains("num_beams") && generation["num_beams"].is_number_integer())
    info.search_defaults.emplace_back("beam-size",
                                      std::to_string(generation["num_beams"].get<int>()));
  info.search_defaults.emplace_back("allow-unk", "true");
}

}  // namespace s2s::formats::hf
