#include "s2s/search/step_loop.h"

#include <algorithm>

#include "s2s/core/threads.h"
#include "s2s/ops/softmax.h"
#include "s2s/search/beam.h"
#include "s2s/search/prefix.h"
#include "s2s/search/repetition.h"
#include "s2s/search/scoring_rules.h"

namespace s2s::search {
namespace {

// The live hypotheses of the next step, the decoder-state rows they extend and their tokens.
struct NextStep {
  std::vector<Live> live;
  std::vector<std::int32_t> rows;
  std::vector<std::int32_t> tokens;

  // Only the first n.
  void keep(std::size_t n) {
    live.erase(live.begin() + static_cast<std::ptrdiff_t>(n), live.end());
    rows.resize(n);
    tokens.resize(n);
  }
};

// The repetition rules on each decoder-state row's logits, by the first live hypothesis that
// reads it (one per row, but at step 0 a sentence's samples share its start state). The rules
// see a hypothesis' tokens as columns; a token that is not one (a forced prefix's, outside the
// shortlist) as a distinct negative number, which still takes part in n-grams.
void apply_repetition_rules_to_rows(SearchState& s) {
  SearchWorkspace& ws = s.workspace;
  const dim_t columns = ws.log_probs.dim(1);
  std::vector<char> done(static_cast<std::size_t>(ws.log_probs.dim(0)), 0);
  for (const Live& l : s.live) {
    if (done[l.row]) continue;
    done[l.row] = 1;
    s.history.ids(l.node, ws.ids);
    for (std::int32_t& id : ws.ids) {
      const std::int32_t column = s.columns.column(id);
      id = column >= 0 ? column : -1 - id;
    }
    apply_repetition_rules(ws.ids, s.options(), ws.log_probs.data<float>() + l.row * columns,
                           columns);
  }
}

// The step's log-probabilities into workspace.log_probs: the output layer's product does the
// log-softmax row by row, unless the repetition rules change the logits first (then it runs in
// place afterwards: the logits are not needed again, so only one such matrix exists).
void step_log_probs(SearchState& s, const std::vector<std::int32_t>& previous) {
  SearchWorkspace& ws = s.workspace;
  if (!uses_repetition_rules(s.options())) {
    s.model.decoder().step(ws.state, previous, ws.log_probs, ops::Epilogue::log_softmax);
    return;
  }
  s.model.decoder().step(ws.state, previous, ws.log_probs);
  apply_repetition_rules_to_rows(s);
  ops::log_softmax(ws.log_probs, ws.log_probs);
}

// With constraints, a hypothesis that does not meet them all is dropped: it is never output.
bool meets_constraints(const SentenceBeam& beam, const ConstraintState& constraint) {
  return beam.constraints == nullptr || constraint.bank >= beam.constraints->total();
}

void finish(SentenceBeam& beam, Hypothesis hypothesis, const SearchOptions& options) {
  hypothesis.normalized_score = normalized_score(hypothesis.score, hypothesis.ids.size(), options);
  beam.finished.push_back(std::move(hypothesis));
}

// Whether the sentence's 1-best can no longer change: a finished hypothesis scores at least as
// high as any continuation of its live ones, next[first..] (scoring_rules.h). Then decoding them
// further cannot change the output, only cost steps: Marian decodes on until every hypothesis of
// the beam has finished, which with --normalize 0 (and CTranslate2's stop when the best candidate
// ends) often means a batch's last steps run for hypotheses that have already lost. Ties keep the
// earlier finished hypothesis (ranked), so stopping on a tie changes nothing either. The n-best
// list needs every finished hypothesis: decoded to the end as Marian does.
bool settled(const SentenceBeam& beam, const std::vector<Live>& next, std::size_t first,
             const SearchOptions& options) {
  if (options.n_best || beam.finished.empty() || first == next.size()) return false;
  float best = beam.finished.front().normalized_score;
  for (const Hypothesis& h : beam.finished) best = std::max(best, h.normalized_score);
  for (std::size_t i = first; i < next.size(); ++i)
    if (best_reachable_score(next[i].score, static_cast<std::size_t>(next[i].length), beam.limit,
                             options) > best)
      return false;
  return true;
}

// Best first by normalized score; equal scores keep the order in which they finished.
std::vector<Hypothesis> ranked(std::vector<Hypothesis> finished, bool n_best) {
  std::stable_sort(finished.begin(), finished.end(), [](const Hypothesis& a, const Hypothesis& b) {
    return a.normalized_score > b.normalized_score;
  });
  if (!n_best && finished.size() > 1) finished.resize(1);
  return finished;
}

// Whether the hypothesis ending at `node` is caught in a loop (caught_in_loop).
bool in_loop(SearchState& s, std::int32_t node) {
  s.history.ids(node, s.workspace.ids, static_cast<std::size_t>(kLoopSpan));
  return caught_in_loop(s.workspace.ids);
}

// Extension `c` (a forced token when `forced`) as a node of the history; then finished, or live
// in `next`.
void extend(SearchState& s, SentenceBeam& beam, const Candidate& c, bool forced,
            ConstraintState constraint, NextStep& next) {
  const SearchOptions& options = s.options();
  const SearchWorkspace& ws = s.workspace;
  const Live& parent = s.live[c.live];
  const float token_score =
      forced ? 0.0f
             : ws.log_probs
                   .data<float>()[parent.row * ws.log_probs.dim(1) + s.columns.column(c.token)];
  const float* alignment = options.alignment ? ws.state.alignment_row(parent.row) : nullptr;
  const auto alignment_size =
      static_cast<std::size_t>(options.alignment ? ws.state.source_length(parent.row) : 0);
  Live child = {parent.sentence, parent.row,
                s.history.add(parent.node, c.token, token_score, alignment, alignment_size),
                parent.length + 1, c.score, std::move(constraint), parent.rng};
  const bool ends_with_eos = c.token == s.model.config().eos_id && !forced;
  const bool ends = ends_with_eos || child.length >= beam.limit;
  const bool heard_stop = options.on_token != nullptr &&
                          !(*options.on_token)(static_cast<std::size_t>(child.sentence), c.token,
                                               token_score, ends);
  const bool looping = !ends && !heard_stop && beam.guard_loops && !forced && in_loop(s, child.node);
  if (!ends && !heard_stop && !looping) {
    next.rows.push_back(parent.row);
    next.tokens.push_back(c.token);
    next.live.push_back(std::move(child));
    return;
  }
  // A hypothesis ended by </s> or the loop guard leaves the beam, which shrinks (no refill); one
  // cut at the length limit or by the hook does not.
  if (ends_with_eos || looping) --beam.width;
  if (!meets_constraints(beam, child.constraint)) return;
  Hypothesis h = s.history.hypothesis(child.node, child.score);
  h.cut_in_loop = looping;
  finish(beam, std::move(h), options);
}

// The extensions of the sentence whose live hypotheses are [first, last), added to `next`.
void extend_sentence(SearchState& s, Strategy& strategy, std::size_t first, std::size_t last,
                     NextStep& next, std::vector<ConstraintState>& states) {
  SentenceBeam& beam = s.beams[s.live[first].sentence];
  const std::size_t first_next = next.live.size();
  // On a forced step every live hypothesis takes the prefix's token, scored 0 (search/prefix.h);
  // the constraints stay as they were.
  const std::int32_t forced_id = forced_token(beam.prefix, s.live[first].length);
  const bool forced = forced_id >= 0;
  std::vector<Candidate> chosen;
  if (forced)
    for (std::size_t i = first; i < last; ++i)
      chosen.push_back({s.live[i].score, static_cast<std::int32_t>(i), forced_id});
  else
    chosen = strategy.choose(s, first, last, states);
  for (std::size_t i = 0; i < chosen.size(); ++i) {
    ConstraintState constraint = beam.constraints == nullptr ? ConstraintState{}
                                 : forced ? s.live[chosen[i].live].constraint
                                          : std::move(states[i]);
    extend(s, beam, chosen[i], forced, std::move(constraint), next);
  }
  if (settled(beam, next.live, first_next, s.options())) next.keep(first_next);
}

// One step after the log-probabilities: every sentence's extensions, then the decoder state
// moved to the rows of the live hypotheses. Returns the tokens they feed to the next step.
std::vector<std::int32_t> extend_all(SearchState& s, Strategy& strategy) {
  NextStep next;
  std::vector<ConstraintState> states;  // after each constrained selection's candidates
  for (std::size_t first = 0; first < s.live.size();) {
    std::size_t last = first;
    while (last < s.live.size() && s.live[last].sentence == s.live[first].sentence) ++last;
    extend_sentence(s, strategy, first, last, next, states);
    first = last;
  }
  s.live = std::move(next.live);
  for (std::size_t i = 0; i < s.live.size(); ++i) s.live[i].row = static_cast<std::int32_t>(i);
  if (!s.live.empty()) s.workspace.state.select_rows(next.rows);
  return std::move(next.tokens);
}

}  // namespace

SearchState::SearchState(const model::Model& m, const model::EncoderOutput& encoded,
                         const SearchRequest& r, SearchWorkspace& w)
    : model(m),
      request(r),
      workspace(w),
      columns(m.config().target_vocab_size, r.candidates),
      forbidden(m, r.options, columns),
      beams(encoded.lengths.size()) {
  for (std::size_t b = 0; b < beams.size(); ++b) {
    beams[b].width = r.options.beam_size;
    beams[b].limit = max_target_length(encoded.lengths[b], r.options);
    beams[b].guard_loops = r.guarded(b);
    beams[b].prefix = prefix_of(&r.prefixes, b);
    Live start;
    start.sentence = start.row = static_cast<std::int32_t>(b);
    live.push_back(std::move(start));
    longest = std::max(longest, beams[b].limit);
  }
}

bool SearchState::stopped() const {
  return request.stop != nullptr && request.stop->load(std::memory_order_relaxed);
}

bool SearchState::too_short(const Live& l) const {
  return l.length < options().min_length || beams[l.sentence].owes_constraints(l);
}

std::vector<std::vector<Hypothesis>> run_steps(SearchState& s, Strategy& strategy,
                                               const model::EncoderOutput& encoded,
                                               dim_t max_rows) {
  const model::Decoder& decoder = s.model.decoder();
  decoder.start(encoded, s.longest, s.workspace.state, max_rows);
  if (s.options().alignment) decoder.keep_alignment(s.workspace.state);
  if (!s.request.candidates.empty())
    decoder.restrict_output(s.workspace.state, s.request.candidates);
  std::vector<std::int32_t> previous(s.beams.size(), decoder.start_id());
  while (!s.live.empty()) {
    if (s.stopped()) return {};
    share_cores();  // fewer threads while other processes take cores (core/threads.h)
    step_log_probs(s, previous);
    if (s.stopped()) return {};
    strategy.score_rows(s);
    if (s.stopped()) return {};
    previous = extend_all(s, strategy);
  }
  std::vector<std::vector<Hypothesis>> results;
  for (SentenceBeam& beam : s.beams) results.push_back(ranked(std::move(beam.finished), s.options().n_best));
  return results;
}

}  // namespace s2s::search
