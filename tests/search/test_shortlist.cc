// Lexical shortlists (model/shortlist.h, formats/shortlist_files.h): the candidate sets of
// Marian's and CTranslate2's semantics, the three file formats, and a search restricted to them.
#include <algorithm>
#include <cstring>

#include "fixtures.h"
#include "golden_search.h"
#include "s2s/batch/batch.h"
#include "s2s/core/error.h"
#include "s2s/formats/shortlist_files.h"
#include "s2s/model/shortlist.h"
#include "s2s/ops/softmax.h"
#include "s2s/pipeline/shortlist_setting.h"
#include "s2s/search/beam.h"
#include "s2s/search/sampling.h"
#include "test_utils.h"

namespace s2s {
namespace {

using Ids = std::vector<std::int32_t>;

model::EncoderOutput encode(const model::Model& model, const std::vector<Ids>& sources) {
  const batch::Batch batch = batch::make_batch(sources, model.config().source_eos_id);
  return model.encoder().forward(batch.ids, batch.lengths, *model.workspaces().lease());
}

// A fixture loaded as a run with a shortlist loads it (ops::Packing::keep_output_rows).
std::shared_ptr<const model::Model> load_with_output_rows(
    const test::FixtureModel& f, ops::Precision precision = ops::Precision::f32) {
  ops::Packing packing(precision);
  packing.keep_output_rows = true;
  return test::load_fixture(f, packing);
}

// Every other id and </s>: a candidate's column is not its id.
Ids every_other_id(const model::Model& model) {
  Ids ids{model.config().eos_id};
  for (std::int32_t id = 0; id < model.config().target_vocab_size; id += 2) ids.push_back(id);
  std::sort(ids.begin(), ids.end());
  ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
  return ids;
}

bool all_in(const Ids& ids, const Ids& candidates) {
  return std::all_of(ids.begin(), ids.end(), [&](std::int32_t id) {
    return std::binary_search(candidates.begin(), candidates.end(), id);
  });
}

}  // namespace

TEST_CASE("Marian's candidates: first ids, each source id's targets, a multiple of 8",
          "[shortlist]") {
  // Source ids 0..3; 2 has targets {40, 12}, 3 has {12}.
  const auto s = model::Shortlist::marian(3, {{}, {}, {40, 12}, {12}}, false);
  // 0,1,2 + 12,40 = 5 ids, padded with the smallest ids >= 3 not chosen: 3,4,5.
  CHECK(s.candidates({{2, 0}}, {}, 50) == Ids{0, 1, 2, 3, 4, 5, 12, 40});
  // The batch's union: sentence 2 adds nothing new, ids beyond the table are ignored.
  CHECK(s.candidates({{2, 0}, {3, 0}, {49}}, {}, 50) == Ids{0, 1, 2, 3, 4, 5, 12, 40});
  // Only the first ids (3 of them), padded to 8.
  CHECK(s.candidates({{0}}, {}, 50) == Ids{0, 1, 2, 3, 4, 5, 6, 7});
  // Never beyond the vocabulary, even if the size cannot reach a multiple of 8.
  CHECK(s.candidates({{2}}, {}, 41).back() == 40);
  // Shared vocabularies: the source ids themselves are candidates.
  const auto shared = model::Shortlist::marian(0, {{}, {}, {}, {}, {}, {}, {}, {}, {}, {9}}, true);
  CHECK(shared.candidates({{9, 30}}, {}, 50) == Ids{0, 1, 2, 3, 4, 5, 9, 30});
}

TEST_CASE("CTranslate2's candidates: the fixed ids, n-gram keys, the target prefix",
          "[shortlist]") {
  std::vector<std::map<Ids, Ids>> rules(2);
  rules[0][{5}] = {20, 21};
  rules[1][{5, 6}] = {30};
  rules[1][{6, 7}] = {31};
  const auto s = model::Shortlist::vocabulary_map(rules, {0, 1, 2});
  CHECK(s.candidates({{5, 6, 8}}, {}, 100) == Ids{0, 1, 2, 20, 21, 30});
  CHECK(s.candidates({{6, 7}}, {{44, 1}}, 100) == Ids{0, 1, 2, 31, 44});
  CHECK(s.candidates({{9}}, {}, 100) == Ids{0, 1, 2});
  CHECK(s.entries() == 3);
}

TEST_CASE("shortlist files: text pruned as Marian prunes, vocabulary maps, errors naming the file",
          "[shortlist]") {
  const auto model = test::load_fixture(test::fixture_named("marian-ymlids-gelu-tied"));
  const text::Vocabulary& src = model->codec().source_vocab();
  const text::Vocabulary& tgt = model->codec().target_vocab();
  const std::string a = src.piece(10), b = tgt.piece(11), c = tgt.piece(12), d = tgt.piece(13);
  test::TempDir dir("shortlist");
  // Ties sort the larger target id first; a later line replaces an earlier one; NULL skipped;
  // probabilities at or under the threshold dropped.
  const std::string text = b + " " + a + " 0.5\n" + c + " " + a + " 0.5\n" + d + " " + a +
                           " 0.9\n" + d + " " + a + " 0.2\nNULL " + a + " 0.99\n";
  const std::string lex = dir.write("lex.s2t", text);
  // The ids chosen beyond Marian's padding (the smallest free ids from first = 0 up to a multiple
  // of 8) and, with shared vocabularies, the source id 10 itself.
  const bool shared = src.path() == tgt.path();
  auto chosen = [&](const std::vector<std::string>& args) {
    const Ids all =
        formats::read_shortlist({lex, args}, *model)->candidates({{10}}, {}, tgt.size());
    CHECK(all.size() % 8 == 0);
    Ids beyond;
    for (std::int32_t id : all)
      if (id > 9 && !(shared && id == 10)) beyond.push_back(id);
    return beyond;
  };
  // 11 and 12 at 0.5, 13 at 0.2 (its 0.9 replaced by the later line).
  CHECK(chosen({"0", "2"}) == Ids{11, 12});
  CHECK(chosen({"0", "5", "0.3"}) == Ids{11, 12});
  CHECK(chosen({"0", "5"}) == Ids{11, 12, 13});
  CHECK(chosen({"0", "1"}) == Ids{12});  // a tie: the larger id first

  const std::string vmap = dir.write("vmap.txt", a + "\t" + b + " " + c + "\n\t" + d + "\n");
  const auto map = formats::read_shortlist({vmap, {}}, *model);
  CHECK(map->kind() == model::Shortlist::Kind::vocabulary_map);
  const Ids found = map->candidates({{10}}, {}, tgt.size());
  for (std::int32_t id : {11, 12, 13, tgt.unk_id(), tgt.eos_id()})
    CHECK(std::count(found.begin(), found.end(), id) == 1);

  CHECK_THROWS_WITH(
      formats::read_shortlist({dir.write("bad.s2t", b + " " + a + " x\n"), {}}, *model),
      Catch::Contains("bad.s2t") && Catch::Contains("TARGET SOURCE PROBABILITY"));
  CHECK_THROWS_WITH(formats::read_shortlist({lex, {"many"}}, *model),
                    Catch::Contains("first 'many'"));
  CHECK_THROWS_WITH(formats::read_shortlist({vmap, {"5"}}, *model), Catch::Contains("no numbers"));
  CHECK_THROWS_WITH(formats::read_shortlist({(dir.dir / "none").string(), {}}, *model),
                    Catch::Contains("no such shortlist file"));
  std::string binary(48, '\0');
  const std::uint64_t magic = 0xF11A48D5013417F5ULL;
  std::memcpy(binary.data(), &magic, 8);
  CHECK_THROWS_WITH(formats::read_shortlist({dir.write("lex.bin", binary), {}}, *model),
                    Catch::Contains("lex.bin") && Catch::Contains("not the file's"));
}

TEST_CASE(
    "a search restricted to candidates produces only candidates, with the log-softmax over them",
    "[shortlist][search]") {
  for (const char* name : {"marian-ymlids-gelu-tied", "marian-prenorm-relu-untied"}) {
    SECTION(name) {
      const test::FixtureModel& f = test::fixture_named(name);
      const auto model = load_with_output_rows(f);
      const std::vector<std::int32_t> source = model->codec().encode_source("the quick brown fox");
      const model::EncoderOutput encoded = encode(*model, {source});
      search::SearchRequest request(test::greedy_options(f));
      const auto full = search::beam_search(*model, encoded, request);
      // The full search's tokens plus a few others: the same translation, higher scores (the
      // softmax is over fewer ids).
      Ids candidates = full.at(0).at(0).ids;
      for (std::int32_t id : {model->config().eos_id, 3, 4, 5}) candidates.push_back(id);
      std::sort(candidates.begin(), candidates.end());
      candidates.erase(std::unique(candidates.begin(), candidates.end()), candidates.end());
      request.candidates = candidates;
      const auto restricted = search::beam_search(*model, encoded, request);
      CHECK(restricted.at(0).at(0).ids == full.at(0).at(0).ids);
      CHECK(restricted.at(0).at(0).score > full.at(0).at(0).score);
      // Without the full search's second token, another one is chosen, from the candidates.
      request.candidates = {model->config().eos_id, 3, 4, 5, 6, 7, 8, 9};
      std::sort(request.candidates.begin(), request.candidates.end());
      const auto narrow = search::beam_search(*model, encoded, request);
      for (std::int32_t id : narrow.at(0).at(0).ids)
        CHECK(std::binary_search(request.candidates.begin(), request.candidates.end(), id));
    }
  }
}

TEST_CASE("restricted logits are the full logits of the candidates, in every precision",
          "[shortlist][model]") {
  for (const ops::Precision precision :
       {ops::Precision::f32, ops::Precision::int8, ops::Precision::bf16}) {
    if (!test::cpu_computes(precision)) continue;
    for (const char* name : {"marian-ymlids-gelu-tied", "marian-prenorm-relu-untied"}) {
      SECTION(std::string(name) + " " + ops::precision_name(precision)) {
        const auto model = load_with_output_rows(test::fixture_named(name), precision);
        const model::EncoderOutput encoded =
            encode(*model, {model->codec().encode_source("the quick brown fox"),
                            model->codec().encode_source("a b")});
        const model::Decoder& decoder = model->decoder();
        const Ids candidates = every_other_id(*model);
        const std::vector<std::int32_t> previous(2, decoder.start_id()), next{3, 4};
        model::DecoderState full = decoder.start(encoded, 4),
                            restricted = decoder.start(encoded, 4),
                            normalized = decoder.start(encoded, 4);
        decoder.restrict_output(restricted, candidates);
        decoder.restrict_output(normalized, candidates);
        for (const auto& tokens : {previous, next}) {
          Tensor all, some, log_probs, expected_log_probs;
          decoder.step(full, tokens, all);
          decoder.step(restricted, tokens, some);
          decoder.step(normalized, tokens, log_probs, ops::Epilogue::log_softmax);
          REQUIRE(some.dim(1) == static_cast<dim_t>(candidates.size()));
          for (dim_t b = 0; b < 2; ++b)
            for (std::size_t c = 0; c < candidates.size(); ++c) {
              const float expected = all.data<float>()[b * all.dim(1) + candidates[c]];
              const float got = some.data<float>()[b * some.dim(1) + static_cast<dim_t>(c)];
              CHECK(got == Approx(expected).margin(1e-4).epsilon(1e-4));
            }
          // The step's log-softmax over the candidates is log_softmax's, bit for bit.
          ops::log_softmax(some, expected_log_probs);
          REQUIRE(log_probs.shape() == expected_log_probs.shape());
          CHECK(std::memcmp(log_probs.data<float>(), expected_log_probs.data<float>(),
                            static_cast<std::size_t>(log_probs.numel()) * sizeof(float)) == 0);
        }
      }
    }
  }
}

TEST_CASE(
    "restricted searches: draws, repetition rules, constraints and prefixes use the candidates",
    "[shortlist][search]") {
  const test::FixtureModel& f = test::fixture_named("marian-ymlids-gelu-tied");
  const auto model = load_with_output_rows(f);
  const model::EncoderOutput encoded =
      encode(*model, {model->codec().encode_source("the quick brown fox jumps")});
  const Ids candidates = every_other_id(*model);
  search::SearchRequest request(test::greedy_options(f));
  request.candidates = candidates;
  const Ids greedy = search::beam_search(*model, encoded, request).at(0).at(0).ids;
  REQUIRE(all_in(greedy, candidates));

  SECTION("draws are candidates, and at a tiny temperature the greedy choice") {
    request.seeds = {7};
    const auto sampled = search::sample_search(*model, encoded, request);
    CHECK(all_in(sampled.at(0).at(0).ids, candidates));
    request.options.temperature = 1e-4f;
    CHECK(search::sample_search(*model, encoded, request).at(0).at(0).ids == greedy);
  }
  SECTION("no repeated n-gram, counted on tokens") {
    // A translation that repeats a token.
    const auto repeats = [](Ids ids) {
      std::sort(ids.begin(), ids.end());
      return std::adjacent_find(ids.begin(), ids.end()) != ids.end();
    };
    const model::EncoderOutput repeating =
        encode(*model, {model->codec().encode_source("the the the fox fox fox jumps jumps over")});
    request.options.min_length = 12;  // the random fixture ends early otherwise
    REQUIRE(repeats(search::beam_search(*model, repeating, request).at(0).at(0).ids));
    request.options.no_repeat_ngram = 1;
    Ids ids = search::beam_search(*model, repeating, request).at(0).at(0).ids;
    CHECK(all_in(ids, candidates));
    CHECK_FALSE(repeats(ids));
  }
  SECTION("a constraint of candidates is met, and a prefix outside them is kept") {
    request.options.beam_size = 4;
    request.constraints = {search::Constraints({{candidates[5], candidates[6]}})};
    const Ids constrained = search::beam_search(*model, encoded, request).at(0).at(0).ids;
    CHECK(std::search(constrained.begin(), constrained.end(), candidates.begin() + 5,
                      candidates.begin() + 7) != constrained.end());
    CHECK(all_in(constrained, candidates));
    request.constraints.clear();
    request.prefixes = {{candidates[5] + 1}};
    request.options.no_repeat_ngram = 2;
    const Ids prefixed = search::beam_search(*model, encoded, request).at(0).at(0).ids;
    REQUIRE(prefixed.size() > 1);
    CHECK(prefixed[0] == candidates[5] + 1);
    CHECK(all_in(Ids(prefixed.begin() + 1, prefixed.end()), candidates));
  }
}

// The golden's shortlist `spec` read for `model`: the file in tests/data/shortlists/<fixture>/ with
// the arguments the reference used.
std::shared_ptr<const model::Shortlist> golden_shortlist(const nlohmann::json& spec,
                                                         const std::string& fixture,
                                                         const model::Model& model) {
  formats::ShortlistSpec file{
      test::data_path("shortlists/" + fixture + "/" + spec["file"].get<std::string>()), {}};
  if (spec["name"] == "text")
    for (const char* key : {"first", "best", "threshold"}) file.args.push_back(spec[key].dump());
  return formats::read_shortlist(file, model);
}

TEST_CASE("shortlists match the reference: candidates per batch, then the searches token for token",
          "[shortlist][parity]") {
  for (const char* name : {"marian-ymlids-gelu-tied", "marian-prenorm-relu-untied"}) {
    SECTION(name) {
      const test::FixtureModel& f = test::fixture_named(name);
      const auto model = load_with_output_rows(f);
      std::ifstream in(test::data_path(std::string("golden/shortlist.") + name + ".json"));
      REQUIRE(in);
      const nlohmann::json golden = nlohmann::json::parse(in);
      std::vector<std::vector<std::int32_t>> sources;
      for (const auto& s : golden["sentences"]) sources.push_back(s["src_ids"].get<Ids>());
      std::size_t changed = 0;
      for (const auto& spec : golden["shortlists"]) {
        INFO(name << ", " << spec["name"].get<std::string>());
        const auto shortlist = golden_shortlist(spec, name, *model);
        for (const auto& b : spec["batches"]) {
          std::vector<std::vector<std::int32_t>> batch_sources;
          for (std::size_t i : b["sentences"].get<std::vector<std::size_t>>())
            batch_sources.push_back(sources[i]);
          CHECK(pipeline::batch_candidates(*model, *shortlist, batch_sources, {}) ==
                b["candidates"].get<Ids>());
        }
        for (const auto& run : spec["runs"]) {
          search::SearchOptions options;
          options.beam_size = run["beam_size"].get<dim_t>();
          options.normalize = run["normalize"].get<float>();
          options.allow_unk = golden["allow_unk"].get<bool>();
          options.n_best = true;
          const bool joint = run["batching"] == "joint";
          for (std::size_t first = 0; first < sources.size(); first += joint ? sources.size() : 1) {
            const std::size_t count = joint ? sources.size() : 1;
            const std::vector<std::vector<std::int32_t>> part(
                sources.begin() + static_cast<std::ptrdiff_t>(first),
                sources.begin() + static_cast<std::ptrdiff_t>(first + count));
            const model::EncoderOutput encoded = encode(*model, part);
            search::SearchRequest request(options);
            request.candidates = pipeline::batch_candidates(*model, *shortlist, part, {});
            const auto found = search::beam_search(*model, encoded, request);
            REQUIRE(found.size() == count);
            for (std::size_t k = 0; k < count; ++k) {
              INFO("sentence " << first + k << ", beam " << options.beam_size << ", normalize "
                               << options.normalize << (joint ? ", one batch" : ", alone"));
              const auto& expected = run["results"][first + k];
              // A near tie in the n-best order (min_nbest_gap) may go either way: the best only.
              const bool whole =
                  run["min_nbest_gap"].is_null() || run["min_nbest_gap"].get<double>() > 1e-4;
              REQUIRE(found[k].size() == expected.size());
              for (std::size_t h = 0; h < (whole ? expected.size() : 1); ++h)
                test::check_hypothesis(found[k][h], expected[h]);
            }
          }
          for (bool c : run["changed"].get<std::vector<bool>>()) changed += c;
        }
      }
      CHECK(changed > 0);  // the shortlists do change translations
    }
  }
}

TEST_CASE("a shortlist needs a model loaded with its output rows when untied", "[shortlist]") {
  const test::FixtureModel& f = test::fixture_named("marian-prenorm-relu-untied");
  const auto model = test::load_fixture(f);
  const model::EncoderOutput encoded = encode(*model, {model->codec().encode_source("a b")});
  search::SearchRequest request(test::greedy_options(f));
  request.candidates = {0, 1, 2, 3, 4, 5, 6, 7};
  CHECK_THROWS_WITH(search::beam_search(*model, encoded, request),
                    Catch::Contains("keep_output_rows"));
}

}  // namespace s2s
