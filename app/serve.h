// `s2s serve`: an HTTP server (cpp-httplib) with LibreTranslate's API and a native one, on the
// library's public API; requests' lines are batched together by serve_queue.h.
#pragma once

#include <cstddef>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "serve_queue.h"
#include "s2s/s2s.h"

namespace s2s::app {

struct ServeConfig {
  std::string host = "127.0.0.1";
  int port = 5000;                                           // 0: any free port
  std::vector<std::string> models;                           // FOLDER or SRC-TGT=FOLDER
  Settings engine_settings;                                  // e.g. {"threads", "2"}
  QueueLimits queue;
  int workers = 0;              // engine calls at a time (0: the cores divided by the threads)
  int connections = 64;         // HTTP threads (open connections served at once)
  std::size_t max_body = 1 << 20;  // bytes
  std::size_t max_chars = 20000;   // characters of text per request
  int alternatives_limit = 16;     // most alternatives a LibreTranslate request may ask
  std::size_t req_limit = 0;       // requests per client per minute; 0: no limit
  int request_timeout = 60;        // seconds: reading a request, and waiting for its translation
  std::string api_keys_file;       // one key per line; empty: no key needed
  std::string port_file;           // written with the port once listening (for port 0)
};

// A served language pair. Pairs of one multilingual folder (NLLB-200, M2M-100) share its engine
// and give their languages with each call.
struct ServedModel {
  std::string source, target, folder;
  std::shared_ptr<const Engine> engine;
  std::string source_lang, target_lang;  // a multilingual engine's pair, given with each call
};

// "en-de=FOLDER" or a FOLDER whose name ends in "SRC-TGT" (opus-mt-en-de): the pair and folder.
ServedModel parse_model_spec(const std::string& spec);

// Loads the models and serves until SIGINT/SIGTERM; then stops accepting, finishes the requests
// in flight and returns.
void serve(const ServeConfig& config);

}  // namespace s2s::app
