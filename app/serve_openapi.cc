// The OpenAPI description served at /openapi.json (the request fields are serve_api.cc's).
#include "serve_api.h"

namespace s2s::app {

nlohmann::json openapi() {
  return nlohmann::json::parse(R"json({
  "openapi": "3.0.3",
  "info": {"title": "s2s serve", "version": "0.1.0",
           "description": "LibreTranslate-compatible /translate and /languages, and s2s's native /v1 endpoints (docs/server.md)."},
  "paths": {
    "/translate": {"post": {"summary": "LibreTranslate: translate q (a string or a list) from source to target",
      "requestBody": {"content": {"application/json": {"schema": {"type": "object", "required": ["q", "source", "target"],
        "properties": {"q": {"oneOf": [{"type": "string"}, {"type": "array", "items": {"type": "string"}}]},
                       "source": {"type": "string"}, "target": {"type": "string"},
                       "format": {"type": "string", "enum": ["text", "html"]},
                       "alternatives": {"type": "integer", "minimum": 0, "maximum": 16},
                       "api_key": {"type": "string"}}}},
        "application/x-www-form-urlencoded": {"schema": {"type": "object"}}}},
      "responses": {"200": {"description": "{\"translatedText\": ..., \"alternatives\": ...}"},
                    "400": {"description": "{\"error\": ...}"}, "403": {"description": "Invalid API key"},
                    "413": {"description": "Body too large"}, "503": {"description": "Queue full (Retry-After)"}}}},
    "/languages": {"get": {"summary": "Served languages: [{code, name, targets}]", "responses": {"200": {"description": "list"}}}},
    "/health": {"get": {"summary": "{\"status\": \"ok\", \"queued\": N}", "responses": {"200": {"description": "ok"}}}},
    "/v1/translate": {"post": {"summary": "Every result of the engine: hypotheses with scores, token scores, alignments, notes",
      "requestBody": {"content": {"application/json": {"schema": {"type": "object", "required": ["text"],
        "properties": {"text": {"oneOf": [{"type": "string"}, {"type": "array", "items": {"type": "string"}}]},
          "source": {"type": "string"}, "target": {"type": "string"},
          "beam_size": {"type": "integer"}, "num_hypotheses": {"type": "integer"},
          "length_penalty": {"type": "number"}, "word_penalty": {"type": "number"},
          "max_input_length": {"type": "integer"}, "max_decoding_length": {"type": "integer"},
          "max_length_factor": {"type": "number"}, "min_decoding_length": {"type": "integer"},
          "repetition_penalty": {"type": "number"}, "no_repeat_ngram_size": {"type": "integer"},
          "allow_unk": {"type": "boolean"}, "sampling_topk": {"type": "integer"},
          "sampling_topp": {"type": "number"}, "sampling_temperature": {"type": "number"},
          "seed": {"type": "integer"}, "alignment": {"type": "string"}, "protect": {"type": "boolean"},
          "html": {"type": "boolean"}, "target_prefix": {"type": "array", "items": {"type": "string"}},
          "glossary": {"type": "array", "description": "[source term, target term] pairs: a text holding a source term is translated with its target term (as --glossary)",
                       "items": {"type": "array", "items": {"type": "string"}, "minItems": 2, "maxItems": 2}}}}}}},
      "responses": {"200": {"description": "{\"results\": [{\"hypotheses\": [...], \"notes\": {...}}]}"}}}},
    "/v1/models": {"get": {"summary": "The pairs served: {\"models\": [{source, target, alignment, alignment_note}], \"max_chars\"} (the page at / uses it)",
      "responses": {"200": {"description": "models"}}}},
    "/": {"get": {"summary": "The web page (HTML; its /web/ files are served by s2s itself)", "responses": {"200": {"description": "text/html"}}}},
    "/v1/score": {"post": {"summary": "Log-probability of each target given its source",
      "requestBody": {"content": {"application/json": {"schema": {"type": "object", "required": ["source", "target"],
        "properties": {"source": {"type": "array", "items": {"type": "string"}}, "target": {"type": "array", "items": {"type": "string"}},
          "source_lang": {"type": "string"}, "target_lang": {"type": "string"},
          "length_penalty": {"type": "number"}, "alignment": {"type": "string"}}}}}},
      "responses": {"200": {"description": "{\"results\": [{\"score\", \"normalized_score\", \"tokens\", \"token_scores\"}]}"}}}}
  }
})json");
}

}  // namespace s2s::app
