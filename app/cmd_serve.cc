// s2s serve: flags, the HTTP server (cpp-httplib) and its life: load the models, listen, stop on
// SIGINT/SIGTERM (interrupt.h's watcher sets the flag; a thread here stops the listener), let
// the requests in flight finish, exit 0. The endpoints are serve_api.cc's.
#include <arpa/inet.h>
#include <httplib.h>
#include <netinet/in.h>
#include <sched.h>
#include <sys/socket.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <regex>
#include <set>
#include <thread>

#include "commands.h"
#include "interrupt.h"
#include "s2s/core/log.h"
#include "serve.h"
#include "serve_api.h"
#include "serve_web.h"

namespace s2s::app {

namespace {

// The pair a folder's own files name: Hugging Face's tokenizer_config.json (MarianTokenizer's
// source_lang / target_lang), or an OPUS-MT README ("* source language(s): en", or the model
// card's "* source languages: en"; one code each). Empty when none names a single pair.
std::pair<std::string, std::string> pair_in_metadata(const std::string& folder) {
  std::ifstream config(folder + "/tokenizer_config.json");
  if (config) {
    const nlohmann::json tokenizer = nlohmann::json::parse(config, nullptr, false);
    if (tokenizer.is_object() && tokenizer.value("source_lang", nlohmann::json()).is_string() &&
        tokenizer.value("target_lang", nlohmann::json()).is_string())
      return {tokenizer["source_lang"], tokenizer["target_lang"]};
  }
  static const std::regex line(R"(^\*\s*(source|target) languages?(?:\(s\))?:\s*([A-Za-z_]{2,8})\s*$)");
  std::ifstream readme(folder + "/README.md");
  std::map<std::string, std::set<std::string>> codes;
  std::smatch match;
  for (std::string text; std::getline(readme, text);)
    if (std::regex_match(text, match, line)) codes[match[1]].insert(match[2]);
  if (codes["source"].size() == 1 && codes["target"].size() == 1)
    return {*codes["source"].begin(), *codes["target"].begin()};
  return {};
}

}  // namespace

ServedModel parse_model_spec(const std::string& spec) {
  static const std::regex pair_given(R"(^([A-Za-z_]{2,8})-([A-Za-z_]{2,8})=(.+)$)");
  static const std::regex pair_in_name(R"((?:^|[-_/])([a-z]{2,3})-([a-z]{2,3})/*$)");
  std::smatch match;
  if (std::regex_match(spec, match, pair_given))
    return {match[1], match[2], match[3], nullptr, "", ""};
  const auto [source, target] = pair_in_metadata(spec);
  if (!source.empty()) return {source, target, spec, nullptr, "", ""};
  if (std::regex_search(spec, match, pair_in_name))
    return {match[1], match[2], spec, nullptr, "", ""};
  throw UsageError("-m " + spec + ": no language pair in the folder's metadata (tokenizer_config.json "
                   "source_lang/target_lang, README.md source/target language lines) or name; give "
                   "it as -m SRC-TGT=" + spec + " (an NLLB-200/M2M-100 folder: one -m per pair)");
}

namespace {

using nlohmann::json;

// Per HTTP thread: the request's start and characters, for the access log.
thread_local std::chrono::steady_clock::time_point request_start;
thread_local std::size_t request_chars = 0;

// The socket of this thread's request. cpp-httplib 0.11.4 gives a handler neither the socket
// nor a "connection closed" test (is_connection_closed came in 0.12), but a handler runs on the
// thread that owns the connection, and the connection is the one socket of the process with the
// request's two addresses.
thread_local int request_socket = -1;

std::string address_text(const sockaddr_storage& address, int& port) {
  char text[INET6_ADDRSTRLEN] = "";
  if (address.ss_family == AF_INET) {
    const auto& in = reinterpret_cast<const sockaddr_in&>(address);
    inet_ntop(AF_INET, &in.sin_addr, text, sizeof text);
    port = ntohs(in.sin_port);
  } else if (address.ss_family == AF_INET6) {
    const auto& in6 = reinterpret_cast<const sockaddr_in6&>(address);
    inet_ntop(AF_INET6, &in6.sin6_addr, text, sizeof text);
    port = ntohs(in6.sin6_port);
  }
  return text;
}

// Whether `fd` is the connection between the request's two addresses.
bool is_request_socket(int fd, const httplib::Request& req) {
  sockaddr_storage local{}, peer{};
  socklen_t local_size = sizeof local, peer_size = sizeof peer;
  if (getsockname(fd, reinterpret_cast<sockaddr*>(&local), &local_size) != 0 ||
      getpeername(fd, reinterpret_cast<sockaddr*>(&peer), &peer_size) != 0)
    return false;
  int local_port = -1, peer_port = -1;
  address_text(local, local_port);
  return local_port == req.local_port && address_text(peer, peer_port) == req.remote_addr &&
         peer_port == req.remote_port;
}

// This thread's previous request's socket first: a kept-alive connection stays on its thread.
int find_request_socket(const httplib::Request& req) {
  if (request_socket >= 0 && is_request_socket(request_socket, req)) return request_socket;
  std::error_code error;
  for (const auto& entry : std::filesystem::directory_iterator("/proc/self/fd", error)) {
    int fd = -1;
    try { fd = std::stoi(entry.path().filename().string()); } catch (...) { continue; }
    if (is_request_socket(fd, req)) return fd;
  }
  return -1;
}

void send_json(httplib::Response& res, int status, const json& body) {
  res.status = status;
  res.set_content(body.dump(), "application/json");
}

// Flask's request.is_json: application/json or application/*+json.
bool is_json(const httplib::Request& req) {
  std::string type = req.get_header_value("Content-Type");
  type = type.substr(0, type.find(';'));
  while (!type.empty() && type.back() == ' ') type.pop_back();
  return type == "application/json" ||
         (type.rfind("application/", 0) == 0 && type.size() > 5 && type.compare(type.size() - 5, 5, "+json") == 0);
}

// CRLF and CR as LF in a form's q, as LibreTranslate does before counting characters.
std::string unix_line_ends(const std::string& text) {
  std::string out;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '\r') out += text[i];
    else if (i + 1 >= text.size() || text[i + 1] != '\n') out += '\n';
  }
  return out;
}

void add_field(json& fields, const std::string& name, const std::string& given) {
  const std::string value = name == "q" ? unix_line_ends(given) : given;
  if (!fields.contains(name)) {
    fields[name] = value;
    return;
  }
  if (!fields[name].is_array()) fields[name] = json::array({fields[name]});
  fields[name].push_back(value);
}

// A JSON object body (LibreTranslate's get_json_dict), or the fields of a form, url-encoded or
// multipart (LibreTranslate's own web page sends multipart), and of the query string. A repeated
// q is a list (LibreTranslate would take the first).
json request_fields(const httplib::Request& req) {
  if (is_json(req)) {
    json body;
    try {
      body = json::parse(req.body);
    } catch (const json::exception& e) {
      throw HttpError(400, std::string("Failed to decode JSON object: ") + e.what());
    }
    if (!body.is_object()) throw HttpError(400, "Invalid JSON format");
    return body;
  }
  json fields = json::object();
  for (const auto& [name, value] : req.params) add_field(fields, name, value);
  for (const auto& [name, part] : req.files) add_field(fields, name, part.content);
  return fields;
}

std::size_t text_chars(const json& fields, const char* name) {
  std::size_t chars = 0;
  if (!fields.is_object() || !fields.contains(name)) return 0;
  const auto count = [&](const json& text) {
    if (text.is_string()) chars += text.get<std::string>().size();
  };
  if (fields[name].is_array()) for (const json& text : fields[name]) count(text);
  else count(fields[name]);
  return chars;
}

// --req-limit: LibreTranslate's limiter keys a client by its API key, else by its address, and
// counts a list of texts as one request per text; over the limit is 429 "Slowdown: ...".
void check_rate(const ServeState& state, const httplib::Request& req, const json& fields, const char* text) {
  if (!state.rate_limiter) return;
  const bool keyed = fields.contains("api_key") && fields["api_key"].is_string() &&
                     state.api_keys.count(fields["api_key"].get<std::string>());
  const std::string client = keyed ? "key:" + fields["api_key"].get<std::string>() : req.remote_addr;
  const std::size_t texts = fields.contains(text) && fields[text].is_array() ? fields[text].size() : 1;
  if (!state.rate_limiter->admit(client, std::max<std::size_t>(1, texts)))
    throw HttpError(429, "Slowdown: " + std::to_string(state.rate_limiter->per_minute()) + " per 1 minute");
}

// A POST endpoint: the fields in, the answer or {"error": ...} out.
httplib::Server::Handler endpoint(const ServeState& state,
                                  json (*answer)(const ServeState&, const json&), const char* text) {
  return [&state, answer, text](const httplib::Request& req, httplib::Response& res) {
    try {
      const json fields = request_fields(req);
      request_chars = text_chars(fields, text);
      check_rate(state, req, fields, text);
      send_json(res, 200, answer(state, fields));
    } catch (const HttpError& e) {
      if (e.status == 503) res.set_header("Retry-After", "1");
      send_json(res, e.status, {{"error", e.what()}});
    } catch (const UsageError& e) {
      send_json(res, 400, {{"error", std::string("Invalid request: ") + e.what()}});
    } catch (const InputError& e) {
      send_json(res, 400, {{"error", std::string("Invalid request: ") + e.what()}});
    } catch (const std::exception& e) {
      send_json(res, 500, {{"error", std::string("Cannot translate text: ") + e.what()}});
    }
  };
}

void log_request(const httplib::Request& req, const httplib::Response& res) {
  const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                      std::chrono::steady_clock::now() - request_start).count();
  char when[32];
  const std::time_t now = std::time(nullptr);
  std::tm utc{};
  gmtime_r(&now, &utc);
  std::strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", &utc);
  log::notice(std::string("serve: ") + when + " " + req.remote_addr + " " + req.method + " " +
              req.path + " " + std::to_string(res.status) + " " + std::to_string(request_chars) +
              " chars " + std::to_string(ms) + " ms");
}

void set_routes(httplib::Server& server, ServeState& state) {
  server.set_pre_routing_handler([](const httplib::Request& req, httplib::Response&) {
    request_start = std::chrono::steady_clock::now();
    request_chars = 0;
    request_socket = find_request_socket(req);
    return httplib::Server::HandlerResponse::Unhandled;
  });
  server.Post("/translate", endpoint(state, libretranslate, "q"));
  server.Post("/v1/translate", endpoint(state, native_translate, "text"));
  server.Post("/v1/score", endpoint(state, native_score, "source"));
  server.Get("/languages", [&state](const httplib::Request&, httplib::Response& res) {
    send_json(res, 200, languages(state));
  });
  server.Get("/health", [&state](const httplib::Request&, httplib::Response& res) {
    const auto [batches, texts] = state.queue->batches_and_texts();
    send_json(res, 200,
              {{"status", "ok"},
               {"queued", state.queue->queued()},
               {"batches", batches},
               {"texts", texts},
               {"cancelled", state.queue->cancelled()},
               {"workers", state.config->workers},
               {"threads_per_worker", std::stoi(state.config->engine_settings.front().second)}});
  });
  add_web_routes(server, state);  // GET / (the page) and GET /v1/models
  server.Get("/openapi.json", [](const httplib::Request&, httplib::Response& res) {
    send_json(res, 200, openapi());
  });
  // LibreTranslate's answers when its server disables files and suggestions.
  for (const auto& [path, message] : {std::pair{"/translate_file", "Files translation are disabled on this server."},
                                      {"/suggest", "Suggestions are disabled on this server."}})
    server.Post(path, [message](const httplib::Request&, httplib::Response& res) {
      send_json(res, 403, {{"error", message}});
    });
  server.Post("/detect", [](const httplib::Request&, httplib::Response& res) {
    send_json(res, 400, {{"error", "/detect is not supported by this server (s2s serve translates text; give source)"}});
  });
  server.Get("/frontend/settings", [&state](const httplib::Request&, httplib::Response& res) {
    send_json(res, 200, {{"apiKeys", !state.api_keys.empty()}, {"keyRequired", !state.api_keys.empty()},
                         {"charLimit", state.config->max_chars}, {"filesTranslation", false},
                         {"suggestions", false}, {"supportedFilesFormat", json::array()}});
  });
  // httplib's own answers (404, 413 over --max-body, 400 unreadable) in LibreTranslate's shape.
  server.set_error_handler([](const httplib::Request&, httplib::Response& res) {
    if (!res.body.empty()) return;
    const std::string message = res.status == 413 ? "Request body too large"
                                : res.status == 404 ? "Not found"
                                                    : "HTTP error " + std::to_string(res.status);
    res.set_content(json{{"error", message}}.dump(), "application/json");
  });
  server.set_logger(log_request);
}

std::set<std::string> read_api_keys(const std::string& path) {
  std::set<std::string> keys;
  if (path.empty()) return keys;
  std::ifstream in(path);
  if (!in) throw UsageError("--api-keys " + path + ": cannot read the file");
  for (std::string line; std::getline(in, line);) {
    while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.pop_back();
    if (!line.empty() && line[0] != '#') keys.insert(line);
  }
  if (keys.empty()) throw UsageError("--api-keys " + path + ": the file holds no key");
  return keys;
}

// A multilingual folder (NLLB-200, M2M-100) refuses to load without its languages: it gets the
// first pair's, and every pair of it gives its own with each call.
std::shared_ptr<const Engine> load_engine(ServedModel& model, Settings settings) {
  try {
    return std::make_shared<const Engine>(model.folder, settings);
  } catch (const UsageError& e) {
    if (std::string(e.what()).find("give --source-lang") == std::string::npos) throw;
  }
  settings.insert(settings.end(), {{"source-lang", model.source}, {"target-lang", model.target}});
  model.source_lang = model.source;
  model.target_lang = model.target;
  return std::make_shared<const Engine>(model.folder, settings);
}

// Each folder loaded once: pairs of the same folder share its engine.
std::vector<ServedModel> load_models(const ServeConfig& config) {
  std::vector<ServedModel> models;
  for (const std::string& spec : config.models) {
    ServedModel model = parse_model_spec(spec);
    const ServedModel* same_folder = nullptr;
    for (const ServedModel& other : models) {
      if (other.source == model.source && other.target == model.target)
        throw UsageError("-m " + spec + ": " + model.source + "-" + model.target + " is served twice");
      if (other.folder == model.folder && same_folder == nullptr) same_folder = &other;
    }
    if (same_folder == nullptr) {
      model.engine = load_engine(model, config.engine_settings);
    } else if (!same_folder->source_lang.empty()) {
      model.engine = same_folder->engine;
      model.source_lang = model.source;
      model.target_lang = model.target;
      log::notice("serve: " + model.source + "-" + model.target + " shares the model of " +
                  same_folder->source + "-" + same_folder->target);
    } else {
      throw UsageError("-m " + spec + ": " + model.folder + " is served as " + same_folder->source +
                       "-" + same_folder->target +
                       " already; only an NLLB-200 or M2M-100 folder "
                       "serves several pairs");
    }
    models.push_back(std::move(model));
  }
  return models;
}

// httplib 0.11.4 listens with a backlog of 5 (CPPHTTPLIB_LISTEN_BACKLOG, compiled into Debian's
// library): more clients connecting at once are dropped and retried or reset. listen() again on
// the bound socket raises it.
class ListeningServer : public httplib::Server {
 public:
  void widen_backlog() { ::listen(svr_sock_, SOMAXCONN); }
};

}  // namespace

// The peer has closed (end of file) or reset the connection. A client that only half-closes
// after its request counts as gone too, as Go's net/http treats it.
bool client_disconnected() {
  if (request_socket < 0) return false;
  char byte;
  const ssize_t got = recv(request_socket, &byte, 1, MSG_PEEK | MSG_DONTWAIT);
  return got == 0 || (got < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR);
}

void serve(const ServeConfig& config) {
  std::signal(SIGPIPE, SIG_IGN);  // a client gone: EPIPE on its socket, not the process killed
  ServeState state;
  state.config = &config;
  state.api_keys = read_api_keys(config.api_keys_file);
  std::vector<ServedModel> models = load_models(config);
  state.models = &models;
  std::optional<RateLimiter> rate_limiter;
  if (config.req_limit > 0) state.rate_limiter = &rate_limiter.emplace(config.req_limit);
  ListeningServer server;
  std::atomic<bool>& stop = stop_gracefully();  // from here a signal stops the server
  {
    BatchQueue queue(config.queue, config.workers);  // outlives the HTTP threads
    state.queue = &queue;
    const int threads = config.connections;
    server.new_task_queue = [threads] { return new httplib::ThreadPool(threads); };
    server.set_payload_max_length(config.max_body);
    server.set_keep_alive_max_count(1000);  // httplib closes a connection after 5 requests otherwise
    // An answer's header and body are two writes: with Nagle's algorithm the body waits for the
    // client's delayed acknowledgement of the header (up to 40 ms) on a kept-alive connection.
    server.set_tcp_nodelay(true);
    server.set_read_timeout(config.request_timeout, 0);
    server.set_write_timeout(config.request_timeout, 0);
    set_routes(server, state);
    const int port = config.port == 0 ? server.bind_to_any_port(config.host)
                                      : (server.bind_to_port(config.host, config.port) ? config.port : -1);
    if (port < 0)
      throw UsageError("cannot listen on " + config.host + ":" + std::to_string(config.port));
    server.widen_backlog();
    if (!config.port_file.empty()) std::ofstream(config.port_file) << port << '\n';
    log::notice("serving on http://" + config.host + ":" + std::to_string(port));
    std::thread stopper([&] {
      while (!stop.load() && !server.is_running()) std::this_thread::sleep_for(std::chrono::milliseconds(10));
      while (!stop.load() && server.is_running()) std::this_thread::sleep_for(std::chrono::milliseconds(50));
      server.stop();
    });
    server.listen_after_bind();  // returns once stopped and every request in flight is answered
    stop = true;
    stopper.join();
  }
  log::notice("serve: stopped");
}

// Every core in use: workers x threads = the cores (OMP_NUM_THREADS when set). Given neither, one
// thread per worker: concurrent requests are translated as one batch per worker, and two batches
// side by side on one thread each beat one batch on two threads both in throughput and in a lone
// sentence's latency (docs/server.md, "Load").
// The cores to divide: OMP_NUM_THREADS when set (the engine's count too), else those this process
// may run on (a cgroup's or Slurm's CPU set, not the machine's).
int usable_cores() {
  if (const char* env = std::getenv("OMP_NUM_THREADS"); env != nullptr && std::atoi(env) > 0)
    return std::atoi(env);
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) == 0) return std::max(1, CPU_COUNT(&set));
  return static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
}

void divide_cores(ServeConfig& config, int threads) {
  const int cores = usable_cores();
  if (config.workers == 0) config.workers = threads > 0 ? std::max(1, cores / threads) : cores;
  if (threads == 0) threads = std::max(1, cores / config.workers);
  config.engine_settings = {{"threads", std::to_string(threads)}};
}

void set_serve_command(CLI::App& app) {
  auto config = std::make_shared<ServeConfig>();
  auto threads = std::make_shared<int>(0);
  auto batch_wait_ms = std::make_shared<int>(5);
  CLI::App* cmd = app.add_subcommand("serve", "HTTP translation server: LibreTranslate's API and a native one (docs/server.md)");
  add_log_flag(*cmd);
  cmd->add_option("-m,--model", config->models,
                  "Model folder, as SRC-TGT=FOLDER or a FOLDER named ...SRC-TGT; repeat for more pairs")
      ->required()->type_name("FOLDER");
  cmd->add_option("--host", config->host, "Address to listen on [default: 127.0.0.1]");
  cmd->add_option("--port", config->port, "Port (0: any free one) [default: 5000]")->check(CLI::Range(0, 65535));
  cmd->add_option("--port-file", config->port_file, "Write the port listened on to FILE")->type_name("FILE");
  cmd->add_option("--api-keys", config->api_keys_file,
                  "File of API keys, one per line: /translate without one of them answers 403")->type_name("FILE");
  cmd->add_option(
         "--threads", *threads,
         "Compute threads of each worker (0: the cores divided among the workers) [default: 0]")
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("--workers", config->workers,
                  "Engine calls at a time (0: the cores divided by --threads) [default: 0]")
      ->check(CLI::Range(0, 64));
  cmd->add_option("--connections", config->connections, "Connections served at once [default: 64]")->check(CLI::Range(1, 4096));
  cmd->add_option("--batch-wait-ms", *batch_wait_ms, "How long a batch waits for other requests' texts [default: 5]")->check(CLI::Range(0, 10000));
  cmd->add_option("--max-batch", config->queue.max_batch, "Most texts per batch [default: 32]")->check(CLI::Range(1, 4096));
  cmd->add_option("--max-queue", config->queue.max_queued, "Most texts waiting; more answers 503 [default: 1024]")->check(CLI::Range(1, 1 << 20));
  cmd->add_option("--max-body", config->max_body, "Largest request body in bytes; more answers 413 [default: 1048576]")->check(CLI::Range(1, 1 << 30));
  cmd->add_option("--max-chars", config->max_chars, "Most characters of text per request; more answers 400 [default: 20000]")->check(CLI::Range(1, 1 << 30));
  cmd->add_option("--alternatives-limit", config->alternatives_limit, "Most alternatives a /translate request may ask [default: 16]")->check(CLI::Range(0, 64));
  cmd->add_option("--req-limit", config->req_limit, "Requests per client (API key, else address) per minute; more answers 429 (0: no limit) [default: 0]")->check(CLI::NonNegativeNumber);
  cmd->add_option("--request-timeout", config->request_timeout, "Seconds to read a request and to translate it [default: 60]")->check(CLI::Range(1, 3600));
  cmd->callback([config, threads, batch_wait_ms]() {
    divide_cores(*config, *threads);
    config->queue.batch_wait = std::chrono::milliseconds(*batch_wait_ms);
    serve(*config);
  });
}

}  // namespace s2s::app
