// The fixture models of tests/data/models (made by tools/fixtures/*.py) and the search rules
// their golden outputs were computed with, so that every parity test walks the same list.
#pragma once

#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "s2s/formats/detect.h"
#include "s2s/search/options.h"
#include "test_utils.h"

namespace s2s::test {

struct FixtureModel {
  const char* name;
  bool allow_unk;     // the source tool's greedy rule: Marian suppresses <unk>, HF and CT2 do not
  dim_t min_length;   // CTranslate2 never ends with </s> at the first step
  const char* spm_from;  // fixture whose SentencePiece models to use, or nullptr (own files)
};

// The Marian / OPUS-MT fixtures (these also have beam-search and scoring goldens).
inline const std::vector<FixtureModel>& marian_fixtures() {
  static const std::vector<FixtureModel> list = {
      {"marian-postnorm-swish-tiedall", false, 0, nullptr},
      {"marian-prenorm-relu-untied", false, 0, nullptr},
      {"marian-ymlids-gelu-tied", false, 0, nullptr},
      {"marian-ffn3-learnedpos-legacyW", false, 0, nullptr},
  };
  return list;
}

// Every fixture model: Marian, Hugging Face MarianMT and CTranslate2 folders.
inline const std::vector<FixtureModel>& all_fixtures() {
  static const std::vector<FixtureModel> list = [] {
    std::vector<FixtureModel> all = marian_fixtures();
    all.push_back({"hf-marian-tied", true, 0, nullptr});
    all.push_back({"hf-marian-fp16-untied", true, 0, nullptr});
    all.push_back({"ct2-onmt-relpos", true, 1, nullptr});
    all.push_back({"ct2-onmt-abspos", true, 1, nullptr});
    all.push_back({"ct2-marian", true, 1, "marian-postnorm-swish-tiedall"});
    return all;
  }();
  return list;
}

// The Hugging Face NLLB-200 / M2M-100 folders (tools/fixtures/make_m2m100_fixtures.py). Their
// translations need --source-lang / --target-lang (tests/formats/test_m2m100.cc); the model
// parity tests decode them from </s> without a language, as the references do.
inline const std::vector<FixtureModel>& fairseq_fixtures() {
  static const std::vector<FixtureModel> list = {
      {"hf-nllb-tied", true, 0, nullptr},
      {"hf-nllb-sharded-untied-legacy", true, 0, nullptr},
      {"hf-m2m100-tied", true, 0, nullptr},
  };
  return list;
}

// Every fixture whose math model/test_parity.cc checks: all_fixtures() and fairseq_fixtures().
inline const std::vector<FixtureModel>& parity_fixtures() {
  static const std::vector<FixtureModel> list = [] {
    std::vector<FixtureModel> all = all_fixtures();
    all.insert(all.end(), fairseq_fixtures().begin(), fairseq_fixtures().end());
    return all;
  }();
  return list;
}

// The entry of all_fixtures() called `name`.
inline const FixtureModel& fixture_named(const std::string& name) {
  for (const FixtureModel& f : all_fixtures())
    if (name == f.name) return f;
  throw std::invalid_argument("no fixture model " + name);
}

inline std::shared_ptr<const model::Model> load_fixture(
    const FixtureModel& f, ops::Packing packing = {}) {
  formats::SpmPaths spm;
  if (f.spm_from) {
    spm.source = data_path(std::string("models/") + f.spm_from + "/source.spm");
    spm.target = data_path(std::string("models/") + f.spm_from + "/target.spm");
  }
  return formats::load_model(data_path(std::string("models/") + f.name), spm, packing);
}

inline search::SearchOptions greedy_options(const FixtureModel& f) {
  search::SearchOptions options;
  options.beam_size = 1;
  options.allow_unk = f.allow_unk;
  options.min_length = f.min_length;
  return options;
}

}  // namespace s2s::test
