// Shared by the fuzz targets: the rule for which exceptions are expected, and input files in a
// private temporary folder (the file readers take paths, not buffers).
#pragma once

#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <string>
#include <typeinfo>

#include "s2s/core/error.h"

namespace s2s::fuzz {

// docs/user-guide.md, "Guarantees": a broken file or input ends in a one-line ModelError or
// InputError. Anything else escaping a reader (InternalError, std::bad_alloc from an unchecked
// size, a yaml-cpp or nlohmann exception, any other type) breaks that contract, and so does a message with a line break in it
// (s2s prints what() as its one error line): it aborts, and libFuzzer keeps the input.
inline void check_one_line(const Error& e) {
  const std::string message = e.what();
  if (message.find_first_of("\n\r") != std::string::npos) {
    std::fprintf(stderr, "s2s fuzz: error message is not one line: %s\n", message.c_str());
    std::abort();
  }
}

template <typename F>
void expect_clean(F&& f) {
  try {
    f();
  } catch (const ModelError& e) {
    check_one_line(e);
  } catch (const InputError& e) {
    check_one_line(e);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "s2s fuzz: unexpected %s: %s\n", typeid(e).name(), e.what());
    std::abort();
  } catch (...) {
    std::fprintf(stderr, "s2s fuzz: unexpected exception of unknown type\n");
    std::abort();
  }
}

// A folder of our own under $TMPDIR, created once per process (libFuzzer runs one input at a time
// per process; -jobs/-workers run separate processes, each with its own folder).
inline const std::string& temp_dir() {
  // Never destroyed: the exit handler that removes the folder runs after static destructors.
  static const std::string& dir = *[] {
    const char* base = std::getenv("TMPDIR");
    auto* pattern =
        new std::string(std::string(base && *base ? base : "/tmp") + "/s2s-fuzz-XXXXXX");
    if (!mkdtemp(pattern->data())) {
      std::perror("s2s fuzz: mkdtemp");
      std::abort();
    }
    std::atexit([] {
      std::error_code ec;
      std::filesystem::remove_all(temp_dir(), ec);
    });
    return pattern;
  }();
  return dir;
}

// Writes the input to temp_dir()/name and returns the path. The file is rewritten by every run.
inline std::string write_temp(const std::string& name, const std::uint8_t* data, std::size_t size) {
  const std::string path = temp_dir() + "/" + name;
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (!f || std::fwrite(data, 1, size, f) != size || std::fclose(f) != 0) {
    std::perror(("s2s fuzz: cannot write " + path).c_str());
    std::abort();
  }
  return path;
}

}  // namespace s2s::fuzz
