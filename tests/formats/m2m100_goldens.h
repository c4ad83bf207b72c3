// The NLLB-200 / M2M-100 translation goldens (golden/<name>.translate.json, written by
// tools/fixtures/make_m2m100_fixtures.py and make_m2m100_ct2_fixtures.py from the numpy
// reference) and the check the format tests share: every golden run translated token for token.
#pragma once

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "fixtures.h"
#include "model/golden.h"
#include "s2s/pipeline/languages.h"
#include "support/model_support.h"
#include "s2s/pipeline/translator.h"
#include "test_utils.h"

namespace s2s::test {

// Rewrites a JSON file of a folder copy (broken-folder tests).
inline void edit_json(const std::filesystem::path& file,
                      const std::function<void(nlohmann::json&)>& change) {
  nlohmann::json j;
  {
    std::ifstream in(file);
    j = nlohmann::json::parse(in);
  }
  change(j);
  std::ofstream(file) << j.dump(2);
}

inline nlohmann::json golden_translations(const std::string& name) {
  std::ifstream in(data_path("golden/" + name + ".translate.json"));
  return nlohmann::json::parse(in);
}

// Translates every run of golden/<golden>.translate.json with `model` (greedy and beam 4, the
// languages forced) and checks the source ids, the ids, the score (1e-4 relative, float32 sums)
// and the text.
inline void check_golden_translations(const std::shared_ptr<const model::Model>& model,
                                      const std::string& golden) {
  std::size_t compared = 0;
  for (const nlohmann::json& run : golden_translations(golden)) {
    pipeline::TranslateOptions options;
    options.search.beam_size = run["beam_size"].get<dim_t>();
    options.search.allow_unk = true;  // HF does not suppress <unk> (the model's own setting)
    options.protect = false;          // the reference reads the text as it is
    pipeline::choose_languages(*model, run["source_lang"], run["target_lang"], options);
    INFO(golden << ": " << run["source_lang"] << " -> " << run["target_lang"] << ", beam "
                << options.search.beam_size << ": " << run["source"]);
    // The source as the tokenizer builds it ([lang] text </s>, or legacy text </s> [lang]).
    CHECK(model->codec().encode_source(options.target_label + " " + run["source"].get<std::string>()) ==
          run["source_ids"].get<std::vector<std::int32_t>>());
    const pipeline::Translator translator(model, options);
    const auto result = translator.translate({run["source"].get<std::string>()});
    REQUIRE(result.size() == 1);
    const search::Hypothesis& best = result[0].hypotheses.at(0);
    CHECK(best.ids == run["ids"].get<std::vector<std::int32_t>>());
    const double expected = run["score"].get<double>();
    CHECK(std::abs(best.score - expected) <= 1e-4 * std::max(1.0, std::abs(expected)));
    CHECK(model->codec().decode_target(best.ids) == run["text"].get<std::string>());
    ++compared;
  }
  CHECK(compared >= 4);
}

// The largest relative error of the model's teacher-forced logits on golden/<golden>.npz's pairs
// against the reference's (forward_all_logits), as compare(actual, expected, scale_fraction)
// measures it: its default as the parity tests use it, 1.0 norm-wise (max |a - b| / max |b|).
inline double golden_logits_error(const model::Model& model, const std::string& golden,
                                  double scale_fraction = 1e-2) {
  const Golden g(golden);
  const model::EncoderOutput encoded =
      test::encode(model.encoder(), g.get("src_ids"), lengths_of(g.get("src_lengths")));
  Tensor logits;
  test::forward_all(model.decoder(), encoded, g.get("tgt_ids"), logits);
  // Steps past a target's length are padding: zero in the golden, zeroed here.
  const std::vector<std::int32_t> lengths = lengths_of(g.get("tgt_lengths"));
  const dim_t steps = logits.dim(1), vocab = logits.dim(2);
  for (dim_t b = 0; b < logits.dim(0); ++b)
    std::fill(logits.data<float>() + (b * steps + lengths[b]) * vocab,
              logits.data<float>() + (b + 1) * steps * vocab, 0.0f);
  return compare(logits, g.get("forward_all_logits"), scale_fraction).max_rel_error;
}

}  // namespace s2s::test
