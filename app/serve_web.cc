#include "serve_web.h"

#include <httplib.h>

#include <regex>

namespace s2s::app {
namespace {

using nlohmann::json;

// The engine's own answer: a model without an alignment layer refuses alignment when the call
// is set up, before any input (its message says why).
json alignment_of(const Engine& engine) {
  TranslationOptions options;
  options.alignment = "hard";
  try {
    engine.translate_batch({""}, options);
    return {{"alignment", true}, {"alignment_note", ""}};
  } catch (const UsageError& e) {
    std::string note = e.what();
    const std::string flag = "--alignment: ";
    if (note.compare(0, flag.size(), flag) == 0) note.erase(0, flag.size());
    return {{"alignment", false}, {"alignment_note", note}};
  }
}

}  // namespace

json served_models(const ServeState& state) {
  json models = json::array();
  for (const ServedModel& model : *state.models) {
    json one = {{"source", model.source}, {"target", model.target}};
    one.update(alignment_of(*model.engine));
    models.push_back(one);
  }
  return {{"models", models}, {"max_chars", state.config->max_chars}};
}

void add_web_routes(httplib::Server& server, const ServeState& state) {
  for (const WebAsset& asset : web_assets()) {
    // httplib's routes are regular expressions: the file name's dots matched as dots.
    const std::string route = std::regex_replace(asset.path, std::regex(R"(\.)"), R"(\.)");
    server.Get(route, [&asset](const httplib::Request&, httplib::Response& res) {
      res.set_header("Content-Security-Policy",
                     "default-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'none'");
      res.set_header("X-Content-Type-Options", "nosniff");
      res.set_header("Cache-Control", "no-cache");
      res.set_content(asset.body.data(), asset.body.size(), asset.content_type);
    });
  }
  const std::string models = served_models(state).dump();  // the models do not change
  server.Get("/v1/models", [models](const httplib::Request&, httplib::Response& res) {
    res.set_content(models, "application/json");
  });
}

}  // namespace s2s::app
