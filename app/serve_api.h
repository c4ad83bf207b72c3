// The endpoints of `s2s serve` (docs/server.md): request JSON into engine calls, results into
// response JSON. HttpError carries the status and LibreTranslate's {"error": ...} message.
#pragma once

#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <vector>

#include "serve.h"
#include "serve_rate.h"

namespace s2s::app {

class HttpError : public std::runtime_error {
 public:
  HttpError(int code, const std::string& message) : std::runtime_error(message), status(code) {}
  int status;
};

struct ServeState {
  const ServeConfig* config = nullptr;
  std::vector<ServedModel>* models = nullptr;
  BatchQueue* queue = nullptr;
  std::set<std::string> api_keys;
  RateLimiter* rate_limiter = nullptr;  // null: no --req-limit
};

// Whether the client of the request this HTTP thread handles has closed its connection
// (cmd_serve.cc).
bool client_disconnected();

// POST /translate (LibreTranslate): the parsed fields (JSON or form) into the answer.
nlohmann::json libretranslate(const ServeState& state, const nlohmann::json& fields);
// GET /languages
nlohmann::json languages(const ServeState& state);
// POST /v1/translate and /v1/score
nlohmann::json native_translate(const ServeState& state, const nlohmann::json& body);
nlohmann::json native_score(const ServeState& state, const nlohmann::json& body);
// GET /openapi.json
nlohmann::json openapi();

}  // namespace s2s::app
