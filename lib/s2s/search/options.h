// SearchOptions: what a user can change per translate call. Defaults are marian-decoder's
// (docs/models.md, "Marian's beam search"); an OPUS-MT decoder.yml usually sets beam-size 4 or 6
// and normalize 1.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>

#include "s2s/core/shape.h"

namespace s2s::search {

// Random sampling instead of beam search (search/sampling.h): from the whole distribution, its
// k most likely tokens, or its smallest set holding probability p.
struct Sampling {
  enum class Kind { off, full, topk, topp };
  Kind kind = Kind::off;
  dim_t k = 0;    // topk
  float p = 1.0f; // topp, in (0, 1]
};

struct SearchOptions {
  dim_t beam_size = 12;            // 1 = greedy
  bool n_best = false;             // keep the whole final beam, not only the best
  float normalize = 0.0f;          // length-normalisation exponent α: score / L^α
  float word_penalty = 0.0f;       // subtracted once per target token (L counts </s>)
  float max_length_factor = 3.0f;  // at most ceil(factor × source length incl. </s>) tokens
  // If > 0: never more than this many target tokens (</s> included), whatever the factor gives
  // (CTranslate2's max_decoding_length). The Translator sets its --max-length here, which also
  // keeps a target within a learned position table.
  dim_t max_length = 0;
  dim_t min_length = 0;            // </s> is not allowed before this many tokens (CTranslate2: 1)
  bool allow_unk = false;          // marian-decoder suppresses <unk> unless --allow-unk
  // CTranslate2's repetition rules (search/repetition.h), off by default (Marian has neither).
  float repetition_penalty = 1.0f;  // logits of tokens already generated: × it if < 0, ÷ it if not
  dim_t no_repeat_ngram = 0;        // if > 0: no n-gram of this size is generated twice
  Sampling sampling;                // off: beam search
  float temperature = 1.0f;         // sampling: log-probabilities divided by it first
  dim_t seed = 0;                   // sampling: with the source, decides a line's samples
  bool alignment = false;           // keep every token's alignment row (Hypothesis::alignment)
  // Hears every token a one-hypothesis-per-sentence search (beam size 1 without n-best, or
  // sampling without n-best) chooses, as it chooses it: the sentence (row of the batch), the
  // token, its log-probability, and whether it ends the hypothesis (</s>, the length limit).
  // Returning false ends the hypothesis there. For interactive use (s2s.h translate_tokens).
  using TokenHook = std::function<bool(std::size_t sentence, std::int32_t id, float log_prob,
                                       bool last)>;
  const TokenHook* on_token = nullptr;
};

}  // namespace s2s::search
