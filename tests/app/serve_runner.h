// `s2s serve` started as a child process on a free loopback port (--port 0 --port-file), and an
// httplib client to it, for the server's tests.
#pragma once

#include <httplib.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "child_process.h"
#include "test_utils.h"

namespace s2s::test {

inline std::string shipped_model() { return std::string(S2S_TEST_DATA) + "/../../models/en-de"; }

class ServerProcess {
 public:
  explicit ServerProcess(std::vector<std::string> args) : dir_(temp_dir("serve")) {
    std::vector<std::string> argv = {test::s2s_binary(),      "serve", "--port", "0", "--port-file",
                                     (dir_ / "port").string()};
    if (std::find(args.begin(), args.end(), "--threads") == args.end())
      argv.insert(argv.end(), {"--threads", "1"});
    argv.insert(argv.end(), args.begin(), args.end());
    child_ = std::make_unique<ChildProcess>(argv);
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    while (port_ == 0 && std::chrono::steady_clock::now() < deadline) {
      const std::string text = read_file(dir_ / "port");
      if (!text.empty() && text.back() == '\n') port_ = std::stoi(text);
      else std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    if (port_ == 0) throw std::runtime_error("s2s serve did not start: " + child_->err());
  }

  httplib::Client client() const {
    httplib::Client c("127.0.0.1", port_);
    c.set_read_timeout(30, 0);
    return c;
  }
  // POST of a JSON body.
  httplib::Result post(const std::string& path, const nlohmann::json& body) const {
    return client().Post(path.c_str(), body.dump(), "application/json");
  }
  ChildProcess& process() { return *child_; }
  int port() const { return port_; }

 private:
  std::filesystem::path dir_;
  std::unique_ptr<ChildProcess> child_;
  int port_ = 0;
};

inline nlohmann::json json_of(const httplib::Result& result) {
  return nlohmann::json::parse(result->body);
}

}  // namespace s2s::test
