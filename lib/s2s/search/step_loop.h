// The step loop that beam search and sampling share (greedy search is beam search with a beam of
// one). Every step: stop if asked, share the cores, run the decoder, apply the repetition rules to
// the logits, take the log-softmax; then the strategy scores the rows (beam search: each row's
// best extensions; sampling: the draws) and chooses each sentence's extensions, except on a forced
// step (search/prefix.h), where every live hypothesis takes the prefix's token. Each extension
// becomes a node of the History and finishes (</s>, the length limit, the token hook, the loop
// guard) or stays live; a sentence whose best can no longer change leaves; the decoder state keeps
// the rows of the live hypotheses. Internal to search/.
#pragma once

#include <cstdint>
#include <vector>

#include "s2s/model/model.h"
#include "s2s/search/columns.h"
#include "s2s/search/constraints.h"
#include "s2s/search/forbidden_ids.h"
#include "s2s/search/history.h"
#include "s2s/search/hypothesis.h"
#include "s2s/search/request.h"
#include "s2s/search/workspace.h"

namespace s2s::search {

// A live hypothesis: its place in the history and what the rules need of it.
struct Live {
  std::int32_t sentence = 0;
  std::int32_t row = 0;                   // the decoder-state row it reads this step
  std::int32_t node = History::kStart;    // its last token
  std::int32_t length = 0;                // its tokens
  float score = 0.0f;                     // the sum of its token scores
  ConstraintState constraint;             // for a sentence with constraints (search/constraints.h)
  std::uint64_t rng = 0;                  // sampling: its random stream
};

// A possible extension: live hypothesis `live` followed by `token` (a target id), with its
// accumulated score.
struct Candidate {
  float score;
  std::int32_t live;
  std::int32_t token;
};

// One sentence of the batch during the search.
struct SentenceBeam {
  dim_t width = 0;  // B_cur: shrinks by one for every hypothesis that finishes with </s>
  dim_t limit = 0;  // maximum target length in tokens
  bool guard_loops = false;
  const std::vector<std::int32_t>* prefix = nullptr;  // forced start (search/prefix.h), or none
  const Constraints* constraints = nullptr;           // terminology constraints, or none
  std::vector<Hypothesis> finished;  // with constraints: only the ones that meet them all

  // Whole-word constraints: the columns excluded after a term, forbidden's plus the tokens that
  // would continue the term's last word (search/constraints.h); null without.
  const std::vector<std::int32_t>* after_term = nullptr;
  const std::vector<std::int32_t>* after_term_too_short = nullptr;

  std::size_t prefix_length() const { return prefix == nullptr ? 0 : prefix->size(); }
  // The columns live hypothesis `l` may not take next (ForbiddenIds' form).
  const std::vector<std::int32_t>& excluded(const Live& l, bool too_short,
                                            const ForbiddenIds& forbidden) const {
    if (after_term != nullptr && l.constraint.term_ended)
      return too_short ? *after_term_too_short : *after_term;
    return too_short ? forbidden.too_short : forbidden.always;
  }
  // </s> is blocked until every constraint is met (Sockeye's is_valid).
  bool owes_constraints(const Live& l) const {
    return constraints != nullptr && l.constraint.bank < constraints->total();
  }
};

// A search in progress: what the strategies read.
struct SearchState {
  const model::Model& model;
  const SearchRequest& request;
  SearchWorkspace& workspace;
  Columns columns;  // of workspace.log_probs: the vocabulary, or the request's candidates
  ForbiddenIds forbidden;
  std::vector<SentenceBeam> beams;  // one per sentence
  std::vector<Live> live;           // grouped by sentence, in sentence order
  History history;
  dim_t longest = 0;                // the largest beams[].limit

  // One sentence per row of `encoded`, each with one live start state (row = its sentence).
  SearchState(const model::Model& model, const model::EncoderOutput& encoded,
              const SearchRequest& request, SearchWorkspace& workspace);
  const SearchOptions& options() const { return request.options; }
  bool stopped() const;
  // Whether live hypothesis `i` is too short for </s> (the minimum length, unmet constraints).
  bool too_short(const Live& l) const;
};

// The per-strategy part of a step.
class Strategy {
 public:
  virtual ~Strategy() = default;
  // After the step's log-softmax (workspace.log_probs, one row per decoder-state row).
  virtual void score_rows(SearchState& search) = 0;
  // The extensions that the sentence whose live hypotheses are [first, last) takes, best first;
  // for a sentence with constraints, `states` receives the constraint state after each.
  virtual std::vector<Candidate> choose(const SearchState& search, std::size_t first,
                                        std::size_t last, std::vector<ConstraintState>& states) = 0;
};

// Runs the steps from search.live until no hypothesis is live, on a decoder state of at most
// `max_rows` rows. For each sentence: its finished hypotheses, best first (all of them with
// n_best, else the best). Empty when stopped.
std::vector<std::vector<Hypothesis>> run_steps(SearchState& search, Strategy& strategy,
                                               const model::EncoderOutput& encoded, dim_t max_rows);

}  // namespace s2s::search
