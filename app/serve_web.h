// The web page of `s2s serve` (GET /, docs/server.md "The page"): app/web/'s files, compiled
// into the binary by app/web/embed.cmake, and GET /v1/models, which tells the page the pairs
// served and which of them give word alignments.
#pragma once

#include <string_view>
#include <vector>

#include "serve_api.h"

namespace httplib {
class Server;
}

namespace s2s::app {

struct WebAsset {
  const char* path;          // "/" for index.html, "/web/NAME" for the others
  const char* content_type;
  std::string_view body;
};

// The page's files (generated web_assets.cc).
const std::vector<WebAsset>& web_assets();

// GET /v1/models: {"models": [{"source", "target", "alignment", "alignment_note"}], "max_chars"}.
// Whether a model gives alignments is asked of its engine once, here.
nlohmann::json served_models(const ServeState& state);

// GET / and the page's files (with a Content-Security-Policy that allows nothing from elsewhere),
// and GET /v1/models.
void add_web_routes(httplib::Server& server, const ServeState& state);

}  // namespace s2s::app
