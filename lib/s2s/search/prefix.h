// Target prefixes ("forced start", CTranslate2's target_prefix): a sentence's translation must
// begin with given target tokens, and the search continues from there. CTranslate2's rules
// (src/decoding.cc update_sample_with_prefix and its callers; tools/reference/marian_search.py,
// TARGET PREFIX, cites the lines), which beam search and sampling both follow:
//  - while a hypothesis is shorter than the prefix, its next token is the prefix's, whatever
//    the exclusions (<unk>, suppressed ids, minimum length) say; there is one hypothesis, and a
//    forced </s> does not end it;
//  - forced tokens score 0: a hypothesis' score sums the log-probabilities of the tokens after
//    the prefix (</s> included), while the length limit, the minimum length, the repetition
//    rules and length normalisation count the prefix tokens as part of the hypothesis, which
//    starts with them;
//  - at the first step after the prefix, </s> may only be chosen as the best candidate (beam
//    search: CTranslate2 keeps short predictions out of the secondary beams).
#pragma once

#include <cstdint>
#include <vector>

namespace s2s::search {

// One prefix per sentence of a batch, as target ids without </s>; an empty one = none.
using Prefixes = std::vector<std::vector<std::int32_t>>;

// The prefix of sentence `b`, or nullptr when it has none.
inline const std::vector<std::int32_t>* prefix_of(const Prefixes* prefixes, std::size_t b) {
  return prefixes != nullptr && b < prefixes->size() && !(*prefixes)[b].empty() ? &(*prefixes)[b]
                                                                                 : nullptr;
}

// The token a hypothesis of `length` tokens is forced to take next, or -1 when it is free.
inline std::int32_t forced_token(const std::vector<std::int32_t>* prefix, std::size_t length) {
  return prefix != nullptr && length < prefix->size() ? (*prefix)[length] : -1;
}

}  // namespace s2s::search
