// Glossary terms sent with a native request (`"glossary": [["source term", "target term"], ...]`):
// the engine takes a glossary as a file (the setting "glossary"), so the terms are written to a
// temporary file of their own for the request's lifetime.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

namespace s2s::app {

class RequestGlossary {
 public:
  // The body's "glossary" field checked (HttpError 400 naming the bad entry) and written out;
  // no field or an empty list: no file.
  explicit RequestGlossary(const nlohmann::json& body);
  ~RequestGlossary();
  RequestGlossary(const RequestGlossary&) = delete;
  RequestGlossary& operator=(const RequestGlossary&) = delete;

  // The file's path, "" without terms.
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

}  // namespace s2s::app
