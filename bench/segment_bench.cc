// segment_bench: the cost of sentence segmentation (text/segment.h) per input line, to set
// beside the translation rate of the same lines (`s2s translate`: hundreds of microseconds or
// more per sentence): segmentation must not be visible in it.
//
//   segment_bench [--input FILE] [--language en] [--seconds 1]
//
// Reads the lines of FILE (default: a built-in paragraph of software sentences, one to twelve
// sentences a line), splits them all repeatedly for at least --seconds, and prints microseconds
// per line, per sentence found and per kilobyte.
#include <CLI/CLI.hpp>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "s2s/text/segment.h"

namespace {

using Clock = std::chrono::steady_clock;

std::vector<std::string> builtin_lines() {
  const std::vector<std::string> sentences = {
      "Click the button to continue.", "An error occurred while connecting to the server.",
      "This program is free software; you can redistribute it.", "Select a printer from the list.",
      "Disk space is running low.", "The download was interrupted.", "See e.g. the manual.",
      "Dr. Smith wrote version 2.0. It works!", "Is it done?", "Open man(1). Then read it.",
      "Press Ctrl+S to save.", "The file was not found."};
  std::vector<std::string> lines;
  for (std::size_t n = 1; n <= sentences.size(); ++n) {
    std::string line;
    for (std::size_t k = 0; k < n; ++k) line += (k ? " " : "") + sentences[k];
    lines.push_back(line);
  }
  return lines;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Sentence segmentation cost per line"};
  std::string input, language = "en";
  double seconds = 1.0;
  app.add_option("--input", input, "Lines to split (default: built-in paragraphs)");
  app.add_option("--language", language, "Source language for abbreviations");
  app.add_option("--seconds", seconds, "Least time to measure");
  CLI11_PARSE(app, argc, argv);

  std::vector<std::string> lines;
  if (input.empty()) {
    lines = builtin_lines();
  } else {
    std::ifstream in(input);
    for (std::string line; std::getline(in, line);) lines.push_back(line);
  }
  std::size_t bytes = 0;
  for (const std::string& line : lines) bytes += line.size();
  const s2s::text::SentenceSplitter splitter(language);
  std::size_t rounds = 0, sentences = 0;
  const Clock::time_point start = Clock::now();
  double elapsed = 0.0;
  do {
    for (const std::string& line : lines) sentences += splitter.split(line).size();
    ++rounds;
    elapsed = std::chrono::duration<double>(Clock::now() - start).count();
  } while (elapsed < seconds);
  const double micros = elapsed * 1e6 / static_cast<double>(rounds);
  std::printf("%zu lines, %zu sentences, %zu bytes: %.2f us/line, %.2f us/sentence, %.2f us/KB\n",
              lines.size(), sentences / rounds, bytes, micros / static_cast<double>(lines.size()),
              micros / static_cast<double>(sentences / rounds),
              micros * 1024.0 / static_cast<double>(bytes));
  return 0;
}
