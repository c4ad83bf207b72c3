// WorkerTeam: a task runs once on every thread of the team, at the same time; the threads are the
// same from one run to the next (translate_each keeps its workers' per-thread state across
// windows through them); a task's exception comes out of run() and leaves the team usable.
#include <algorithm>
#include <atomic>
#include <catch2/catch.hpp>
#include <mutex>
#include <stdexcept>
#include <thread>
#include <vector>

#include "s2s/formats/detect.h"
#include "s2s/pipeline/translator.h"
#include "s2s/pipeline/worker_team.h"
#include "test_utils.h"

namespace s2s {

namespace {

// The ids of the threads that ran one run of `team`, sorted.
std::vector<std::thread::id> run_once(pipeline::WorkerTeam& team) {
  std::mutex m;
  std::vector<std::thread::id> ids;
  std::atomic<int> arrived{0};
  team.run([&] {
    // Every thread waits here for all the others: the run cannot end unless they run at once.
    ++arrived;
    while (arrived.load() < team.size()) std::this_thread::yield();
    const std::lock_guard<std::mutex> lock(m);
    ids.push_back(std::this_thread::get_id());
  });
  std::sort(ids.begin(), ids.end());
  return ids;
}

}  // namespace

TEST_CASE("WorkerTeam runs a task on each of its threads at once, the same threads every run",
          "[pipeline]") {
  pipeline::WorkerTeam team(3, 1);
  REQUIRE(team.size() == 3);
  const std::vector<std::thread::id> first = run_once(team);
  REQUIRE(first.size() == 3);
  CHECK(std::adjacent_find(first.begin(), first.end()) == first.end());  // three distinct threads
  CHECK(std::find(first.begin(), first.end(), std::this_thread::get_id()) == first.end());
  for (int round = 0; round < 20; ++round) CHECK(run_once(team) == first);
}

TEST_CASE("WorkerTeam rethrows a task's exception and runs again afterwards", "[pipeline]") {
  pipeline::WorkerTeam team(2, 1);
  std::atomic<int> calls{0};
  const auto failing = [&] {
    if (++calls == 1) throw std::runtime_error("worker failed");
  };
  CHECK_THROWS_WITH(team.run(failing), "worker failed");
  CHECK(calls == 2);  // the other thread still ran its task
  CHECK(run_once(team).size() == 2);
}

TEST_CASE("translate_each on a kept team gives translate()'s results, call after call",
          "[pipeline]") {
  const auto model = formats::load_model(test::data_path("models/marian-postnorm-swish-tiedall"));
  pipeline::TranslateOptions options;
  options.search.beam_size = 2;
  options.batch_size = 2;
  const pipeline::Translator translator(model, options);
  const std::vector<std::string> lines = {"The license is free.", "", "You may copy the program!",
                                          "Is this the world?", "Hello world.", "the the the"};
  const std::vector<pipeline::Translation> expected = translator.translate(lines);
  pipeline::WorkerTeam team(2, 1);
  pipeline::ParallelOptions parallel{2, 1};
  parallel.team = &team;
  for (int call = 0; call < 3; ++call) {
    std::vector<pipeline::Translation> got(lines.size());
    std::vector<std::thread::id> threads;
    std::mutex m;
    translator.translate_each(
        lines,
        [&](std::size_t i, pipeline::Translation t, const pipeline::InputNotes&) {
          const std::lock_guard<std::mutex> lock(m);
          if (!t.hypotheses.empty()) threads.push_back(std::this_thread::get_id());
          got[i] = std::move(t);
        },
        1, nullptr, parallel);
    for (std::size_t i = 0; i < lines.size(); ++i) {
      INFO("call " << call << " line " << i);
      REQUIRE(got[i].hypotheses.size() == expected[i].hypotheses.size());
      if (!got[i].hypotheses.empty()) CHECK(got[i].hypotheses[0].ids == expected[i].hypotheses[0].ids);
    }
    // Translated lines were finished on the team's threads, never on the caller's.
    CHECK(std::find(threads.begin(), threads.end(), std::this_thread::get_id()) == threads.end());
  }
  pipeline::ParallelOptions wrong{3, 1};
  wrong.team = &team;
  CHECK_THROWS(translator.translate_each(
      lines, [](std::size_t, pipeline::Translation, const pipeline::InputNotes&) {}, 1, nullptr,
      wrong));
}

}  // namespace s2s
