#include "s2s/layers/weights.h"

namespace s2s::layers {

void WeightStore::add(const std::string& name, Tensor tensor, ops::WeightLayout layout,
                      std::string origin) {
  S2S_CHECK(!contains(name), "weight ", name, " added twice");
  if (origin.empty()) origin = name;
  entries_[name] = Entry{std::move(tensor), layout, std::move(origin)};
}

std::string WeightStore::describe(const std::string& name, const Entry& e) const {
  return source_ + ": weight '" + e.origin + "'" + (e.origin == name ? "" : " (" + name + ")");
}

void WeightStore::alias(const std::string& name, const std::string& target) {
  S2S_CHECK(!contains(name), "alias ", name, " shadows a weight");
  find(target).aliases++;
  aliases_[name] = target;
}

bool WeightStore::contains(const std::string& name) const {
  return entries_.count(name) || aliases_.count(name);
}

WeightStore::Entry& WeightStore::find(const std::string& name) {
  auto a = aliases_.find(name);
  const std::string& key = a == aliases_.end() ? name : a->second;
  auto it = entries_.find(key);
  if (it == entries_.end())
    throw ModelError(source_ + ": missing weight '" + name + "'");
  return it->second;
}

bool WeightStore::contains_origin(const std::string& origin) const {
  for (const auto& [name, entry] : entries_)
    if (entry.origin == origin) return true;
  return false;
}

Tensor WeightStore::take(const std::string& name, const Shape& expected) {
  Entry& e = find(name);
  if (e.tensor.shape() != expected)
    throw ModelError(describe(name, e) + " has shape " + to_string(e.tensor.shape()) +
                     ", expected " + to_string(expected));
  if (e.tensor.dtype() != DataType::f32)
    throw ModelError(describe(name, e) + " has type " + dtype_name(e.tensor.dtype()) +
                     ", expected float32");
  e.taken = true;
  return e.tensor.view();
}

WeightStore::Linear WeightStore::take_linear(const std::string& name, dim_t in, dim_t out) {
  Entry& e = find(name);
  const Shape expected = e.layout == ops::WeightLayout::in_out ? Shape{in, out} : Shape{out, in};
  Tensor view = take(name, expected);
  if (aliases_.count(name) || e.aliases > 0) return Linear{std::move(view), e.layout};
  Linear taken{std::move(e.tensor), e.layout};
  e.tensor = Tensor();  // a moved-from Tensor keeps its data pointer: nothing may see it
  return taken;
}

std::vector<std::string> WeightStore::untaken() const {
  std::vector<std::string> names;
  for (const auto& [name, entry] : entries_)
    if (!entry.taken) names.push_back(entry.origin);
  return names;
}

dim_t WeightStore::parameter_count() const {
  dim_t n = 0;
  for (const auto& [name, entry] : entries_) n += entry.tensor.numel();
  return n;
}

}  // namespace s2s::layers
