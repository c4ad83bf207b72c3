// Lexical shortlists: the target ids a batch may produce, from its source ids. The output layer
// and the log-softmax then cover only those ids (model::Decoder::restrict_output), as Marian's
// --shortlist and CTranslate2's vocabulary map (use_vmap) do; docs/performance.md, "Shortlists".
// Two semantics, each as its engine has it:
//  - Marian (src/data/shortlist.cpp, LexicalShortlistGenerator and BinaryShortlistGenerator,
//    generate): ids 0..first-1, then for every distinct source id of the batch its (pruned)
//    targets, and the source id itself for a model whose vocabularies are shared; then the
//    smallest ids >= first not yet in the set until its size is a multiple of 8.
//  - CTranslate2 (src/vocabulary_map.cc, get_candidates): <unk>, <s> and </s>, the targets of the
//    map's empty key, the targets of every source n-gram that is a key, and every id of the
//    batch's target prefixes.
// Both sorted. The set is the batch's, not each sentence's: like both engines, a sentence's
// translation can depend on the other sentences of its batch.
#pragma once

#include <cstdint>
#include <map>
#include <vector>

namespace s2s::model {

class Shortlist {
 public:
  enum class Kind { marian, vocabulary_map };

  // Marian's: `targets[s]` are source id s's targets after pruning (best, threshold).
  static Shortlist marian(std::int32_t first, std::vector<std::vector<std::int32_t>> targets,
                          bool shared_vocabulary);
  // CTranslate2's: `rules[n - 1]` maps source n-grams of ids to their targets; `always` holds
  // the ids that are always candidates (<unk>, <s>, </s>, the empty key's).
  static Shortlist vocabulary_map(
      std::vector<std::map<std::vector<std::int32_t>, std::vector<std::int32_t>>> rules,
      std::vector<std::int32_t> always);

  Kind kind() const { return kind_; }
  std::int32_t first() const { return first_; }
  // Source ids with targets (Marian), or keys (CTranslate2): for s2s info.
  std::size_t entries() const;

  // The sorted candidate ids of a batch of `sources` (each sentence's ids as the encoder reads
  // them, </s> included) with `prefixes` (CTranslate2 only), for a target vocabulary of
  // `vocab_size` ids.
  std::vector<std::int32_t> candidates(const std::vector<std::vector<std::int32_t>>& sources,
                                       const std::vector<std::vector<std::int32_t>>& prefixes,
                                       std::int32_t vocab_size) const;

 private:
  std::vector<std::int32_t> marian_candidates(const std::vector<std::vector<std::int32_t>>& sources,
                                              std::int32_t vocab_size) const;
  std::vector<std::int32_t> map_candidates(const std::vector<std::vector<std::int32_t>>& sources,
                                           const std::vector<std::vector<std::int32_t>>& prefixes,
                                           std::int32_t vocab_size) const;

  Kind kind_ = Kind::marian;
  std::int32_t first_ = 0;
  bool shared_vocabulary_ = false;
  std::vector<std::vector<std::int32_t>> targets_;
  std::vector<std::map<std::vector<std::int32_t>, std::vector<std::int32_t>>> rules_;
  std::vector<std::int32_t> always_;
};

}  // namespace s2s::model
