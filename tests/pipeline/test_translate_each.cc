// Translator::translate_each: every line is delivered exactly once, as soon as its batch ends, with
// the result translate() gives; a stop ends the call within one decoder step and delivers no
// line after it; beam search abandons its batch when stopped.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <mutex>
#include <thread>
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "s2s/batch/batch.h"
#include "support/model_support.h"
#include "s2s/formats/detect.h"
#include "s2s/pipeline/translator.h"
#include "s2s/search/beam.h"
#include "test_utils.h"

namespace s2s {
namespace {

std::shared_ptr<const model::Model> fixture_model() {
  return formats::load_model(test::data_path("models/marian-postnorm-swish-tiedall"));
}

std::vector<std::string> sample_lines() {
  return {"The license is free.", "", "You may copy the program!", "   ", "Is this the world?",
          "Hello world.", "the the the", "This package provides a tool."};
}

}  // namespace

TEST_CASE("translate_each delivers every line once, with translate()'s result", "[pipeline]") {
  const auto model = fixture_model();
  pipeline::TranslateOptions options;
  options.search.beam_size = 2;
  options.batch_size = 2;
  const pipeline::Translator translator(model, options);
  const std::vector<std::string> lines = sample_lines();
  const std::vector<pipeline::Translation> expected = translator.translate(lines);
  REQUIRE(expected.size() == lines.size());

  for (const int workers : {1, 3}) {
    std::vector<int> times(lines.size(), 0);
    std::vector<pipeline::Translation> got(lines.size());
    std::vector<std::size_t> order;
    translator.translate_each(
        lines,
        [&](std::size_t i, pipeline::Translation t, const pipeline::InputNotes&) {
          REQUIRE(i < lines.size());
          ++times[i];
          got[i] = std::move(t);
          order.push_back(i);
        },
        1, nullptr, pipeline::ParallelOptions{workers, 1});
    for (std::size_t i = 0; i < lines.size(); ++i) {
      CHECK(times[i] == 1);
      REQUIRE(got[i].hypotheses.size() == expected[i].hypotheses.size());
      if (!got[i].hypotheses.empty()) CHECK(got[i].hypotheses[0].ids == expected[i].hypotheses[0].ids);
    }
    if (workers == 1) {  // blank lines need no batch: they come first
      REQUIRE(order.size() == lines.size());
      CHECK(order[0] == 1);
      CHECK(order[1] == 3);
    }
  }
}

TEST_CASE("translate_each with workers: both take batches, one delivers at a time", "[pipeline]") {
  const auto model = fixture_model();
  pipeline::TranslateOptions options;
  options.batch_size = 2;
  const pipeline::Translator translator(model, options);
  std::vector<std::string> lines;
  for (int copy = 0; copy < 6; ++copy)
    for (const std::string& line : sample_lines()) lines.push_back(line);
  std::atomic<int> inside{0};
  int most_inside = 0;
  std::vector<std::thread::id> threads;
  std::mutex seen;  // only for `threads` (a broken guard must show in most_inside, not crash)
  translator.translate_each(
      lines,
      [&](std::size_t, pipeline::Translation t, const pipeline::InputNotes&) {
        most_inside = std::max(most_inside, ++inside);
        if (!t.hypotheses.empty()) {
          const std::lock_guard<std::mutex> lock(seen);
          if (std::find(threads.begin(), threads.end(), std::this_thread::get_id()) == threads.end())
            threads.push_back(std::this_thread::get_id());
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(2));  // let the other one try
        --inside;
      },
      1, nullptr, pipeline::ParallelOptions{2, 1});
  CHECK(most_inside == 1);
  // 36 lines in batches of 2: both workers finish batches (unless the machine gave one of them
  // no time at all for the whole call, which a 2 ms sleep per line makes unlikely).
  CHECK(threads.size() == 2);
}

TEST_CASE("translate_each: a stop ends the call and no line is delivered after it", "[pipeline]") {
  const auto model = fixture_model();
  pipeline::TranslateOptions options;
  options.search.beam_size = 2;
  options.batch_size = 1;  // one line per batch: the stop lands with six batches to go
  const pipeline::Translator translator(model, options);
  const std::vector<std::string> lines = sample_lines();
  std::atomic<bool> stop{false};
  std::size_t delivered = 0, after_stop = 0;
  translator.translate_each(
      lines,
      [&](std::size_t, pipeline::Translation t, const pipeline::InputNotes&) {
        if (stop.load()) ++after_stop;
        ++delivered;
        if (!t.hypotheses.empty()) stop.store(true);  // stop at the first translated line
      },
      1, &stop);
  CHECK(after_stop == 0);
  CHECK(delivered == 3);  // the two blank lines, then one translated line

  // translate(): only the lines before the first one not translated.
  std::atomic<bool> stopped{true};
  CHECK(translator.translate(lines, 1, nullptr, &stopped).empty());
}

TEST_CASE("beam_search: stopped before a step, it abandons the batch", "[search]") {
  const auto model = fixture_model();
  const std::vector<std::int32_t> ids = model->codec().encode_source("The license is free.");
  const batch::Batch batch = batch::make_batch({ids}, model->config().source_eos_id);
  const model::EncoderOutput encoded = test::encode(model->encoder(), batch.ids, batch.lengths);
  search::SearchOptions options;
  options.beam_size = 3;
  std::atomic<bool> stop{false};
  search::SearchRequest request(options);
  request.stop = &stop;
  CHECK(search::beam_search(*model, encoded, request).size() == 1);
  stop.store(true);
  CHECK(search::beam_search(*model, encoded, request).empty());
}

}  // namespace s2s
