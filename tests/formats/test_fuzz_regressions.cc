// Inputs on which the fuzzers (tools/fuzz) found a bug, kept in
// tests/data/fuzz/regressions/<target>/. Each file goes through the same reader as its fuzz target
// and must end in success or in a one-line ModelError / InputError (docs/user-guide.md,
// "Guarantees"); a crash fails the whole test run. A new finding needs only its file: the folder
// name picks the reader.
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <sstream>

#include "s2s/formats/ct2_model.h"
#include "s2s/formats/marian.h"
#include "s2s/formats/npy.h"
#include "s2s/formats/npz.h"
#include "s2s/formats/safetensors.h"
#include "s2s/pipeline/line_reader.h"
#include "s2s/text/vocab.h"
#include "s2s/text/yaml_vocab.h"
#include "test_utils.h"

namespace fs = std::filesystem;
using namespace s2s;
using Catch::Matchers::Contains;

namespace {

const fs::path kRegressions = fs::path(S2S_TEST_DATA) / "fuzz" / "regressions";

std::string read_bytes(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

// A scratch folder per input, for the readers that take a path.
struct Scratch {
  fs::path dir;
  Scratch() {
    std::string pattern = (fs::temp_directory_path() / "s2s-fuzz-regression-XXXXXX").string();
    REQUIRE(mkdtemp(pattern.data()) != nullptr);
    dir = pattern;
  }
  ~Scratch() {
    std::error_code ec;
    fs::remove_all(dir, ec);
  }
  std::string write(const std::string& name, const std::string& bytes) const {
    const fs::path path = dir / name;
    std::ofstream(path, std::ios::binary) << bytes;
    return path.string();
  }
};

// The lines LineReader must give (line_reader.h): split on '\n', none after a final '\n', one
// trailing '\r' dropped from each.
std::vector<std::string> reference_lines(const std::string& text) {
  std::vector<std::string> lines;
  for (std::size_t pos = 0; pos < text.size();) {
    std::size_t end = text.find('\n', pos);
    if (end == std::string::npos) end = text.size();
    std::string line = text.substr(pos, end - pos);
    if (!line.empty() && line.back() == '\r') line.pop_back();
    lines.push_back(std::move(line));
    pos = end + 1;
  }
  return lines;
}

// What each fuzz target does with its input (tools/fuzz/fuzz_<target>.cc), minus the abort()s.
using Reader = std::function<void(const std::string& bytes, const Scratch& scratch)>;

const std::map<std::string, Reader>& readers() {
  static const std::map<std::string, Reader> map = {
      {"npy",
       [](const std::string& b, const Scratch&) {
         const auto* data = reinterpret_cast<const std::uint8_t*>(b.data());
         formats::to_tensor(formats::parse_npy(data, b.size(), "fuzz.npy"));
       }},
      {"npz",
       [](const std::string& b, const Scratch& s) {
         const formats::NpzArchive npz(s.write("fuzz.npz", b));
         for (const std::string& name : npz.names()) npz.read(name);
       }},
      {"safetensors",
       [](const std::string& b, const Scratch& s) {
         const formats::SafetensorsFile st(s.write("fuzz.safetensors", b));
         for (const std::string& name : st.names()) st.read_tensor(name);
       }},
      {"ct2_model",
       [](const std::string& b, const Scratch& s) {
         const formats::Ct2ModelFile ct2(s.write("model.bin", b));
         for (const std::string& name : ct2.names()) ct2.read_tensor(name);
       }},
      {"model_yml",
       [](const std::string& b, const Scratch&) { formats::marian_config(b, "fuzz.npz"); }},
      {"decoder_yml",
       [](const std::string& b, const Scratch& s) {
         s.write("decoder.yml", b);
         formats::find_marian_files(s.dir);
       }},
      {"vocab_yml",
       [](const std::string& b, const Scratch&) {
         text::Vocabulary::from_entries(text::parse_yaml_vocab(b, "fuzz.vocab.yml"),
                                        "fuzz.vocab.yml", text::VocabFormat::yaml);
       }},
      {"vocab_json", [](const std::string& b,
                        const Scratch& s) { text::Vocabulary::load(s.write("vocab.json", b)); }},
      {"line_reader",
       [](const std::string& b, const Scratch& s) {
         // The fuzz input starts with two control bytes (writer chunk, window sizes); the text
         // follows. Windows of 1, 2, 3 ... lines over a file.
         const std::string text = b.size() < 2 ? std::string() : b.substr(2);
         const int fd = ::open(s.write("input.txt", text).c_str(), O_RDONLY);
         REQUIRE(fd >= 0);
         pipeline::LineReader reader(fd);
         std::vector<std::string> all, window;
         for (std::size_t max_lines = 1; reader.next_window(window, max_lines); ++max_lines) {
           CHECK(window.size() <= max_lines);
           all.insert(all.end(), window.begin(), window.end());
         }
         ::close(fd);
         CHECK(all == reference_lines(text));
       }},
  };
  return map;
}

// Runs one input; returns the error message, or "" on success. Other exceptions fail the test.
std::string run(const std::string& target, const fs::path& input) {
  const Scratch scratch;
  try {
    readers().at(target)(read_bytes(input), scratch);
  } catch (const ModelError& e) {
    return e.what();
  } catch (const InputError& e) {
    return e.what();
  } catch (const std::exception& e) {
    FAIL_CHECK("unexpected exception: " << e.what());
  }
  return "";
}

std::vector<fs::path> sorted_files(const fs::path& folder) {
  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator(folder))
    if (entry.is_regular_file()) files.push_back(entry.path());
  std::sort(files.begin(), files.end());
  return files;
}

}  // namespace

TEST_CASE("fuzz regressions: every input ends in success or a one-line ModelError/InputError",
          "[formats][fuzz]") {
  REQUIRE(fs::is_directory(kRegressions));
  int inputs = 0;
  for (const auto& entry : fs::directory_iterator(kRegressions)) {
    REQUIRE(entry.is_directory());
    const std::string target = entry.path().filename().string();
    INFO("target folder " << target);
    REQUIRE(readers().count(target) == 1);  // a folder must be named after a fuzz target
    for (const fs::path& input : sorted_files(entry.path())) {
      INFO("input " << input.string());
      const std::string message = run(target, input);
      CHECK(message.find_first_of("\n\r") == std::string::npos);
      ++inputs;
    }
  }
  CHECK(inputs > 0);
}

TEST_CASE("fuzz regressions: what the fixes report", "[formats][fuzz]") {
  auto error_of = [](const std::string& target, const std::string& file) {
    return run(target, kRegressions / target / file);
  };
  // shape (0, 99, 99993, ...): no payload needed, but the strides overflowed int64 (UBSan).
  CHECK_THAT(error_of("npy", "empty-shape-strides-overflow.npy"),
             Contains("fuzz.npy: shape [0, 99") && Contains("is too large"));
  // A decoder.yml that is a plain scalar: yaml-cpp threw BadSubscript out of find_marian_files.
  CHECK_THAT(error_of("decoder_yml", "scalar-document.yml"), Contains("not a mapping of options"));
  // A map as a 'models' entry: yaml-cpp's TypedBadConversion escaped the same way.
  CHECK_THAT(error_of("decoder_yml", "map-as-model-entry.yml"),
             Contains("decoder.yml: models[0] is not a file name"));
  // An id of 8.9 million among two pieces: a 284 MB table before the fix.
  CHECK_THAT(error_of("vocab_yml", "sparse-id-512mb-table.yml"),
             Contains("fuzz.vocab.yml: ids go up to") && Contains("the file is corrupt"));
  // Line breaks from the file (an npy header, yaml-cpp quoting a character) are written as \n.
  CHECK_THAT(error_of("npy", "header-error-message-line-breaks.npy"), Contains("\\n"));
  CHECK_THAT(error_of("model_yml", "yaml-cpp-message-line-break.yml"), Contains("\\n"));
}
