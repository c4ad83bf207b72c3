#include "s2s/pipeline/translator.h"

#include <algorithm>
#include <atomic>
#include <cctype>
#include <exception>

#include "s2s/batch/batch.h"
#include "s2s/batch/batcher.h"
#include "s2s/pipeline/line_assembly.h"
#include "s2s/pipeline/protection.h"
#include "s2s/pipeline/shortlist_setting.h"
#include "s2s/pipeline/units.h"
#include "s2s/pipeline/worker_team.h"
#include "s2s/search/beam.h"
#include "s2s/search/sampling.h"
#include "s2s/search/scoring_rules.h"
#include "s2s/text/segment.h"

namespace s2s::pipeline {
namespace {

// A glossary's target terms stay reachable under a shortlist: their pieces join the candidates.
void add_term_pieces(const std::vector<search::Constraints>& constraints,
                     std::vector<std::int32_t>& candidates) {
  for (const search::Constraints& c : constraints)
    for (const std::vector<std::int32_t>& phrase : c.phrases())
      candidates.insert(candidates.end(), phrase.begin(), phrase.end());
  std::sort(candidates.begin(), candidates.end());
  candidates.erase(std::unique(candidates.begin(), candidates.end()), candidates.end());
}

// Most bytes of encoder attention scores per batch (see translate()).
constexpr std::size_t kScoreBytes = std::size_t{64} << 20;

// Removes a hypothesis' first n tokens (TranslateOptions::target_start): ids, scores and
// alignment rows (of source_length floats each).
void drop_start(search::Hypothesis& h, std::size_t n, std::size_t source_length) {
  n = std::min(n, h.ids.size());
  const auto first = static_cast<std::ptrdiff_t>(n);
  h.ids.erase(h.ids.begin(), h.ids.begin() + first);
  h.token_scores.erase(h.token_scores.begin(), h.token_scores.begin() + first);
  if (!h.alignment.empty())
    h.alignment.erase(h.alignment.begin(),
                      h.alignment.begin() + first * static_cast<std::ptrdiff_t>(source_length));
}

// The splitter TranslateOptions::sentence_split asks for; with "off", English's, which cuts
// only lines over the token limit.
std::shared_ptr<const text::SentenceSplitter> sentence_splitter(const std::string& setting) {
  const std::string language = setting == "on" || setting == "off" ? "en" : setting;
  // ISO 639 codes, optionally with a region: "en", "pt_BR", "de-AT".
  const bool code = language.size() >= 2 && language.size() <= 8 &&
                    std::all_of(language.begin(), language.end(), [](unsigned char c) {
                      return std::isalpha(c) || c == '_' || c == '-';
                    });
  if (!code)
    throw UsageError("--sentence-split " + setting +
                     ": give off, on, or the source language's ISO 639 code (en, de, ...)");
  return std::make_shared<const text::SentenceSplitter>(language);
}

}  // namespace

std::string joined_text(const Translation& translation, std::size_t k, const TextOfIds& text_of,
                        const char* between) {
  const search::Hypothesis& h = translation.hypotheses[k];
  if (!translation.split) return text_of(h.ids);
  const std::vector<std::size_t>& ends = translation.units[k].ends;
  std::string text;
  std::size_t begin = 0;
  for (std::size_t u = 0; u < ends.size(); ++u) {
    const std::string unit_text =
        text_of(std::vector<std::int32_t>(h.ids.begin() + static_cast<std::ptrdiff_t>(begin),
                                          h.ids.begin() + static_cast<std::ptrdiff_t>(ends[u])));
    begin = ends[u];
    if (unit_text.empty()) continue;
    if (!text.empty()) text += between != nullptr ? std::string(between) : translation.separators[u];
    text += unit_text;
  }
  return text;
}

bool is_blank(const std::string& line) {
  return std::all_of(line.begin(), line.end(),
                     [](unsigned char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; });
}

std::string long_line_message(std::size_t line_number, const InputNotes& notes,
                              const TokenLimit& limit) {
  const std::string head = too_long_message(line_number, notes.source_tokens, limit);
  switch (notes.long_line) {
    case InputNotes::LongLine::split:
      return head + ": split into " + std::to_string(notes.pieces) +
             " pieces, translated separately and joined" +
             (notes.loops_cut == 0
                  ? std::string()
                  : "; the translations of " + std::to_string(notes.loops_cut) +
                        " of them fell into a loop and were cut (" +
                        std::to_string(search::kLoopSpan) + " tokens in a row drawn from " +
                        std::to_string(search::kLoopTokens) + " or fewer)");
    case InputNotes::LongLine::truncated:
      return head + (notes.sentences > 1 ? ": its sentences over the limit truncated to their"
                                         : ": truncated to its") +
             " first " + std::to_string(limit.tokens) + " tokens";
    case InputNotes::LongLine::no:
      break;
  }
  return {};
}

Translator::Translator(std::shared_ptr<const model::Model> model, TranslateOptions options)
    : model_(std::move(model)), options_(std::move(options)) {
  if (options_.batch_size < 1) throw UsageError("batch size must be at least 1");
  if (options_.batch_tokens < 0) throw UsageError("batch tokens must not be negative");
  if (options_.max_length < 1) throw UsageError("max length must be at least 1");
  limit_ = TokenLimit::of(static_cast<std::size_t>(options_.max_length),
                          static_cast<std::size_t>(std::max<dim_t>(model_->config().max_positions, 0)));
  const std::size_t added = model_->codec().encode_source("").size() +
                            (options_.target_label.empty() ? 0 : 1);
  if (limit_.tokens <= added)
    throw UsageError(limit_.describe() + " leaves no room for text: the model adds " +
                     std::to_string(added) + " token" + (added == 1 ? "" : "s") +
                     " (</s>, language label) to every sentence");
  multilingual_ = !model_->codec().source_vocab().language_tokens().empty();
  options_.search.alignment = options_.alignment.on();
  if (options_.alignment.on()) model_->decoder().check_alignment();  // before any input
  // A translation is held to --max-length as its source is (search/options.h); not to a learned
  // position table, which Marian clamps for targets (docs/models.md, "Marian / OPUS-MT").
  if (options_.search.max_length <= 0 || options_.search.max_length > options_.max_length)
    options_.search.max_length = options_.max_length;
  search::check_beam_size(*model_, options_.search);  // before any input
  if (!options_.glossary_file.empty()) {
    if (options_.target_prefix)
      throw UsageError("--glossary and target prefixes cannot be combined: give one of them");
    if (options_.search.sampling.kind != search::Sampling::Kind::off)
      throw UsageError("--glossary needs beam search: not with --sampling");
    glossary_ = std::make_shared<const Glossary>(Glossary::load(options_.glossary_file));
  }
  splitter_ = sentence_splitter(options_.sentence_split);
  can_align_ = model_->config().alignment_layer >= 0;
  const std::string& check = options_.short_translations;
  if (check != "retry" && check != "warn" && check != "off")
    throw UsageError("--short-translations " + check + ": give retry, warn or off");
}

std::vector<std::string> glossary_messages(std::size_t line_number, const InputNotes& notes) {
  std::vector<std::string> out;
  const std::string head = "line " + std::to_string(line_number) + ": ";
  if (notes.glossary_fallback)
    out.push_back(head + "the glossary's target terms could not all be placed within the " +
                  "length limit: translated without them");
  if (notes.glossary_split)
    out.push_back(head + "too long for glossary constraints (split into pieces): translated " +
                  "without its " + std::to_string(notes.glossary_terms) + " glossary term" +
                  (notes.glossary_terms == 1 ? "" : "s"));
  for (std::size_t entry : notes.glossary_unknown)
    out.push_back(head + "glossary line " + std::to_string(entry) +
                  ": its target term has a token the model's target vocabulary lacks (<unk>): " +
                  "not applied");
  return out;
}

bool short_translation(std::size_t source_tokens, std::size_t target_tokens) {
  return source_tokens >= kShortMinSource &&
         static_cast<double>(target_tokens) < kShortRatio * static_cast<double>(source_tokens);
}

std::vector<std::string> short_messages(std::size_t line_number, const InputNotes& notes) {
  std::vector<std::string> out;
  for (const InputNotes::ShortUnit& unit : notes.short_units)
    out.push_back("line " + std::to_string(line_number) + ": the translation of " +
                  (notes.sentences > 1 || notes.pieces > 1
                       ? "its part " + std::to_string(unit.unit + 1)
                       : std::string("the line")) +
                  " is much shorter than its source (" + std::to_string(unit.target_tokens) +
                  " tokens for " + std::to_string(unit.source_tokens) + ")" +
                  (unit.searched_again ? ", even after a second search" : "") +
                  ": content may be missing");
  return out;
}

namespace {

// A hypothesis' tokens besides </s>.
std::size_t target_tokens(const search::Hypothesis& h, std::int32_t eos) {
  return h.ids.size() - (!h.ids.empty() && h.ids.back() == eos ? 1 : 0);
}

// One run of the model: `count` units of a batch (Translator::translate_each).
struct Job {
  const std::size_t* members;
  std::size_t count;
};

// For `workers` workers: each run of `workers` consecutive batches (similar lengths, as
// make_batches sorts them) is pooled and dealt out again row by row into `workers` batches, so
// that the batches a window's workers take side by side are equally long and none waits long at
// the window's end; a window of fewer lines than workers gets one batch per line.
std::vector<std::vector<std::size_t>> deal_for_workers(
    const std::vector<std::vector<std::size_t>>& batches, std::size_t workers) {
  std::vector<std::vector<std::size_t>> dealt;
  for (std::size_t first = 0; first < batches.size(); first += workers) {
    std::vector<std::size_t> pool;
    for (std::size_t b = first; b < std::min(batches.size(), first + workers); ++b)
      pool.insert(pool.end(), batches[b].begin(), batches[b].end());
    const std::size_t hands = std::min(workers, pool.size());
    const std::size_t base = dealt.size();
    dealt.resize(base + hands);
    for (std::size_t i = 0; i < pool.size(); ++i) dealt[base + i % hands].push_back(pool[i]);
  }
  return dealt;
}

// The team's threads take the jobs in order, one at a time, until none is left or `stopped()`.
// The first job's error (in job order) is rethrown.
template <typename Run, typename Stopped>
void run_jobs(const std::vector<Job>& jobs, WorkerTeam& team, const Run& run,
              const Stopped& stopped) {
  std::atomic<std::size_t> next{0};
  std::vector<std::exception_ptr> errors(jobs.size());
  team.run([&] {
    for (std::size_t j; (j = next.fetch_add(1)) < jobs.size() && !stopped();) {
      try {
        run(jobs[j]);
      } catch (...) {
        errors[j] = std::current_exception();
        next = jobs.size();  // the others finish their job and stop
      }
    }
  });
  for (const std::exception_ptr& e : errors)
    if (e) std::rethrow_exception(e);
}


// The search of one job's units (a batch): encoded, searched (beam search or sampling), the
// glossary's fallback and the retry of short translations; each unit's hypotheses then go to
// the LineAssembly.
class JobRunner {
 public:
  JobRunner(const model::Model& model, const TranslateOptions& options, bool glossary,
            bool can_align, const Units& units, LineAssembly& assembly,
            const std::atomic<bool>* stop)
      : model_(model), options_(options), glossary_(glossary), can_align_(can_align),
        units_(units), assembly_(assembly), stop_(stop) {}

  void run(const Job& job, search::SearchWorkspace& workspace) const {
    const std::vector<std::size_t> members(job.members, job.members + job.count);
    // With alignment rows when a unit has masked spans, to put them back by.
    search::SearchOptions options = options_.search;
    for (std::size_t u : members) options.alignment |= can_align_ && units_.is_protected(u);
    std::vector<std::vector<search::Hypothesis>> found =
        search_units(members, options, glossary_, workspace);
    if (found.size() != members.size()) return;  // stopped during the search
    if (sampling()) return finish(members, found);
    if (!fall_back_unconstrained(members, options, found, workspace)) return;  // stopped
    if (!retry_short(members, options, found, workspace)) return;              // stopped
    finish(members, found);
  }

 private:
  bool sampling() const { return options_.search.sampling.kind != search::Sampling::Kind::off; }

  // Units `members` as one batch, encoded and searched with `options`, each with its prefix, and
  // with its loop guard (beam search), its glossary constraints (`constrained`) or its seed
  // (sampling: each sentence's samples depend on the seed and its own source only). Fewer
  // results than units: stopped.
  std::vector<std::vector<search::Hypothesis>> search_units(
      const std::vector<std::size_t>& members, const search::SearchOptions& options,
      bool constrained, search::SearchWorkspace& workspace) const {
    search::SearchRequest request(options);
    request.stop = stop_;
    std::vector<std::vector<std::int32_t>> sources;
    for (std::size_t u : members) {
      sources.push_back(units_.ids[u]);
      if (options_.target_prefix || !options_.target_start.empty())
        request.prefixes.push_back(units_.prefix[u]);
      if (constrained) request.constraints.push_back(units_.constraints[u]);
      if (sampling())
        request.seeds.push_back(search::sentence_seed(
            static_cast<std::uint64_t>(options_.search.seed), units_.ids[u]));
      else  // the pieces of a sentence over the limit (search/beam.h); whole sentences never
        request.guard_loops.push_back(units_.guard_loops[u]);
    }
    if (options_.shortlist != nullptr) {
      request.candidates = batch_candidates(model_, *options_.shortlist, sources, request.prefixes);
      add_term_pieces(request.constraints, request.candidates);
    }
    const batch::Batch batch = batch::make_batch(sources, model_.config().source_eos_id);
    const model::EncoderOutput encoded =
        model_.encoder().forward(batch.ids, batch.lengths, *model_.workspaces().lease());
    return sampling() ? search::sample_search(model_, encoded, request, workspace)
                      : search::beam_search(model_, encoded, request, workspace);
  }

  // Units whose constraints were not met within the length limit (an empty result) get the
  // unconstrained search, as a batch of their own. Returns false when stopped.
  bool fall_back_unconstrained(const std::vector<std::size_t>& members,
                               const search::SearchOptions& options,
                               std::vector<std::vector<search::Hypothesis>>& found,
                               search::SearchWorkspace& workspace) const {
    std::vector<std::size_t> unmet, unmet_units;
    for (std::size_t k = 0; k < members.size(); ++k)
      if (glossary_ && !units_.constraints[members[k]].empty() && found[k].empty()) {
        unmet.push_back(k);
        unmet_units.push_back(members[k]);
      }
    if (unmet.empty()) return true;
    auto plain = search_units(unmet_units, options, false, workspace);
    if (plain.size() != unmet.size()) return false;
    for (std::size_t j = 0; j < unmet.size(); ++j) {
      found[unmet[j]] = std::move(plain[j]);
      assembly_.note_glossary_fallback(unmet_units[j]);
    }
    return true;
  }

  // Whether unit `u`'s best translation `h` is implausibly short (short_translation); only one
  // that ended (</s>): one cut at the length limit was not given up.
  bool is_short(std::size_t u, const search::Hypothesis& h) const {
    const std::int32_t eos = model_.config().eos_id;
    return !h.ids.empty() && h.ids.back() == eos &&
           short_translation(unit_source_tokens(units_, u), target_tokens(h, eos));
  }

  // Units whose best translation is implausibly short are searched again with a wider beam and
  // length normalisation (a beam that settles on an early </s> is how a sentence usually loses a
  // clause; TranslateOptions::short_translations "retry"); the longer best translation is kept,
  // and a unit still short is noted. Constrained units are left as they are. Returns false when
  // stopped.
  bool retry_short(const std::vector<std::size_t>& members, const search::SearchOptions& options,
                   std::vector<std::vector<search::Hypothesis>>& found,
                   search::SearchWorkspace& workspace) const {
    if (options_.short_translations == "off") return true;
    std::vector<std::size_t> rows, short_units;
    for (std::size_t k = 0; k < members.size(); ++k)
      if (!(glossary_ && !units_.constraints[members[k]].empty()) && !found[k].empty() &&
          is_short(members[k], found[k].front())) {
        rows.push_back(k);
        short_units.push_back(members[k]);
      }
    if (rows.empty()) return true;
    const bool retry = options_.short_translations == "retry";
    std::vector<std::vector<search::Hypothesis>> again(rows.size());
    if (retry) {
      search::SearchOptions wider = options;
      wider.beam_size = std::max<dim_t>(2 * wider.beam_size, 8);
      wider.normalize = std::max(wider.normalize, 1.0f);
      again = search_units(short_units, wider, false, workspace);
      if (again.size() != rows.size()) return false;
    }
    const std::int32_t eos = model_.config().eos_id;
    for (std::size_t j = 0; j < rows.size(); ++j) {
      std::vector<search::Hypothesis>& first = found[rows[j]];
      if (!again[j].empty() &&
          target_tokens(again[j].front(), eos) > target_tokens(first.front(), eos))
        first = std::move(again[j]);
      if (is_short(short_units[j], first.front()))
        assembly_.note_short(short_units[j], target_tokens(first.front(), eos), retry);
    }
    return true;
  }

  // The hypotheses without the forced start tokens, to the assembly.
  void finish(const std::vector<std::size_t>& members,
              std::vector<std::vector<search::Hypothesis>>& found) const {
    for (std::size_t k = 0; k < members.size(); ++k) {
      for (search::Hypothesis& h : found[k])
        drop_start(h, options_.target_start.size(), units_.ids[members[k]].size());
      assembly_.finish_unit(members[k], std::move(found[k]));
    }
  }

  const model::Model& model_;
  const TranslateOptions& options_;
  const bool glossary_;  // units carry glossary constraints
  const bool can_align_;
  const Units& units_;
  LineAssembly& assembly_;
  const std::atomic<bool>* stop_;
};

// The jobs of `units`: batches of similar lengths (dealt out among `workers`), each cut to rows
// whose encoder attention scores stay within kScoreBytes, longest first. `batches` keeps the
// unit lists that the jobs point into.
std::vector<Job> plan_jobs(const Units& units, std::size_t workers, std::size_t heads,
                           const batch::BatchLimits& limits,
                           std::vector<std::vector<std::size_t>>& batches) {
  std::vector<std::size_t> lengths;
  for (const auto& ids : units.ids) lengths.push_back(ids.size());
  batches = batch::make_batches(lengths, limits);
  if (workers > 1) batches = deal_for_workers(batches, workers);
  std::vector<Job> jobs;
  for (const std::vector<std::size_t>& members : batches) {
    // The encoder's attention scores take rows × heads × length² floats: long sentences (up to
    // the limit, 256 tokens by default) go a few rows at a time. Results do not depend on
    // batching.
    std::size_t longest = 1;
    for (std::size_t m : members) longest = std::max(longest, lengths[m]);
    const std::size_t rows =
        std::max<std::size_t>(1, kScoreBytes / (heads * longest * longest * sizeof(float)));
    for (std::size_t start = 0; start < members.size(); start += rows)
      jobs.push_back({members.data() + start, std::min(rows, members.size() - start)});
  }
  // Longest batches first. Every per-worker buffer (encoder scratch, key/value caches) then
  // reaches its largest size at the first job and is never allocated and page-faulted in again,
  // where shortest-first grew them batch after batch; and workers that take jobs in this order
  // end a window on its shortest jobs, so that neither waits long for the other (longest
  // processing time first). Batches are the same, so are the results.
  std::reverse(jobs.begin(), jobs.end());
  return jobs;
}

}  // namespace

void Translator::translate_each(const std::vector<std::string>& lines, const LineDone& done,
                                std::size_t first_line_number, const std::atomic<bool>* stop,
                                const ParallelOptions& parallel) const {
  std::vector<InputNotes> notes;
  const UnitMaker maker{model_->codec(), options_, limit_, *splitter_,
                        options_.sentence_split != "off", glossary_.get(),
                        model_->config().source_eos_id, model_->config().eos_id,
                        model_->config().unk_id, multilingual_,
                        ProtectionSettings{options_.protect, options_.html}};
  Units units = maker.make(lines, first_line_number, notes);
  const auto stopped = [stop] { return stop != nullptr && stop->load(std::memory_order_relaxed); };
  LineAssembly assembly(units, notes, done, *model_, options_, can_align_);
  assembly.finish_blank_lines(stopped);
  const std::size_t workers = static_cast<std::size_t>(std::max(parallel.workers, 1));
  std::vector<std::vector<std::size_t>> batches;
  const std::vector<Job> jobs =
      plan_jobs(units, workers, static_cast<std::size_t>(std::max<dim_t>(model_->config().heads, 1)),
                {options_.batch_size, options_.batch_tokens}, batches);
  const JobRunner runner(*model_, options_, glossary_ != nullptr, can_align_, units, assembly, stop);
  const auto run = [&](const Job& job) {
    const search::WorkspacePool::Lease workspace = workspaces_->lease();
    runner.run(job, *workspace);
  };
  if (workers == 1) {
    for (const Job& job : jobs) {
      if (stopped()) return;
      run(job);
    }
  } else if (parallel.team != nullptr) {
    S2S_CHECK(parallel.team->size() == parallel.workers, "a team of ", parallel.team->size(),
              " threads for ", parallel.workers, " workers");
    run_jobs(jobs, *parallel.team, run, stopped);
  } else {
    WorkerTeam team(static_cast<int>(std::min(workers, jobs.size())), parallel.threads_per_worker);
    run_jobs(jobs, team, run, stopped);
  }
}

std::vector<Translation> Translator::translate(const std::vector<std::string>& lines,
                                               std::size_t first_line_number,
                                               std::vector<InputNotes>* notes,
                                               const std::atomic<bool>* stop) const {
  std::vector<Translation> results(lines.size());
  std::vector<char> finished(lines.size(), 0);
  if (notes != nullptr) notes->assign(lines.size(), InputNotes{});
  translate_each(
      lines,
      [&](std::size_t i, Translation translation, const InputNotes& note) {
        results[i] = std::move(translation);
        finished[i] = 1;
        if (notes != nullptr) (*notes)[i] = note;
      },
      first_line_number, stop);
  // Stopped: keep the lines before the first one not translated.
  const std::size_t complete = static_cast<std::size_t>(
      std::find(finished.begin(), finished.end(), 0) - finished.begin());
  results.resize(complete);
  return results;
}

}  // namespace s2s::pipeline
