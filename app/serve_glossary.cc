#include "serve_glossary.h"

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <vector>

#include "serve_api.h"

namespace s2s::app {
namespace {

constexpr std::size_t kMostTerms = 1000;

// "source<TAB>target\n" lines (pipeline/glossary.h's format); the terms may hold no TAB or line end.
std::string glossary_text(const nlohmann::json& terms) {
  if (!terms.is_array())
    throw HttpError(400, "Invalid request: glossary must be a list of [source term, target term] pairs");
  if (terms.size() > kMostTerms)
    throw HttpError(400, "Invalid request: glossary has " + std::to_string(terms.size()) +
                             " terms, more than " + std::to_string(kMostTerms));
  std::string text;
  for (std::size_t i = 0; i < terms.size(); ++i) {
    const std::string entry = "Invalid request: glossary entry " + std::to_string(i + 1);
    const nlohmann::json& pair = terms[i];
    if (!pair.is_array() || pair.size() != 2 || !pair[0].is_string() || !pair[1].is_string())
      throw HttpError(400, entry + " is not a [source term, target term] pair of strings");
    for (const nlohmann::json& term : pair) {
      const std::string& s = term.get_ref<const std::string&>();
      if (s.find_first_not_of(" \t\r\n") == std::string::npos)
        throw HttpError(400, entry + " has an empty term");
      if (s.find_first_of("\t\r\n") != std::string::npos)
        throw HttpError(400, entry + " has a tab or line break in a term");
    }
    text += pair[0].get<std::string>() + "\t" + pair[1].get<std::string>() + "\n";
  }
  return text;
}

}  // namespace

RequestGlossary::RequestGlossary(const nlohmann::json& body) {
  if (!body.is_object() || !body.contains("glossary")) return;
  const std::string text = glossary_text(body["glossary"]);
  if (text.empty()) return;
  std::string name = (std::filesystem::temp_directory_path() / "s2s-serve-glossary-XXXXXX").string();
  std::vector<char> buffer(name.begin(), name.end());
  buffer.push_back('\0');
  const int fd = mkstemp(buffer.data());
  if (fd < 0) throw HttpError(500, "cannot write the request's glossary to a temporary file");
  path_ = buffer.data();
  const bool written = ::write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size());
  ::close(fd);
  if (!written) {
    std::filesystem::remove(path_);
    throw HttpError(500, "cannot write the request's glossary to a temporary file");
  }
}

RequestGlossary::~RequestGlossary() {
  std::error_code ignored;
  if (!path_.empty()) std::filesystem::remove(path_, ignored);
}

}  // namespace s2s::app
