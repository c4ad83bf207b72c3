// s2s score: log-probabilities of (source, target) pairs, like marian-scorer.
// Pairs come from --source/--target files (same line counts), from tab-separated lines (-i or
// stdin), or from --source plus a Marian/Moses n-best list (--n-best), which is written back with
// one more feature. Output keeps input order and one record per pair.
//
// Every input line is cleaned as translate does (pipeline/input_text.h: invalid UTF-8 -> U+FFFD
// with a warning, control characters -> space, a byte order mark at the start of a file
// dropped). A side longer than --max-length tokens is truncated to fit, with a warning (a pair
// cannot be split: its two sides must stay aligned), or is an error with --long-lines fail. A
// line that cannot be read (no tab; not an n-best line) is an error naming it, or with
// --skip-bad a warning and an empty record: an empty line, or {"skipped":true} in jsonl; it is
// left out of --summary.
#include <cmath>
#include <csignal>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>

#include "commands.h"
#include "interrupt.h"
#include "io.h"
#include "s2s/core/log.h"
#include "s2s/core/threads.h"
#include "s2s/formats/detect.h"
#include "s2s/pipeline/input_text.h"
#include "s2s/pipeline/output.h"
#include "s2s/pipeline/scorer.h"

namespace s2s::app {
namespace {

struct ScoreArgs {
  std::string model;
  std::string source, target, input = "-", output = "-";
  std::string nbest;
  std::string nbest_feature = "Fscore";  // marian-scorer's default feature name
  std::string summary;
  CLI::Option* summary_option = nullptr;
  std::string format = "text";
  CLI::Option* normalize_option = nullptr;
  float normalize = 0.0f;
  bool word_scores = false;
  bool quiet = false;
  bool skip_bad = false;  // a line that cannot be read gets an empty record, not an error
  std::size_t max_length = 1000;
  std::string long_lines = "split";
  int threads = 0;
  ScoreOptions options;
  formats::SpmPaths spm;
};

constexpr std::size_t kWindow = 4096;  // pairs scored per Scorer call

std::size_t count_lines(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path + ": cannot open input file");
  std::size_t lines = 0;
  std::string line;
  while (std::getline(in, line)) ++lines;
  return lines;
}

bool next_line(std::istream& in, std::string& line) {
  if (!std::getline(in, line)) return false;
  if (!line.empty() && line.back() == '\r') line.pop_back();
  return true;
}

// marian-scorer prints scores with std::to_string (six decimals).
std::string fixed(float v) { return std::to_string(v); }

// Corpus figures as marian-scorer computes them from the cross-entropy (−log p) of every pair.
struct Summary {
  double cross_entropy = 0.0;
  std::size_t words = 0;  // target tokens incl. </s>
  std::size_t pairs = 0;
  double value(const std::string& kind) const {
    if (kind == "ce-sum") return cross_entropy;
    if (kind == "ce-mean-words") return cross_entropy / static_cast<double>(words);
    if (kind == "perplexity") return std::exp(cross_entropy / static_cast<double>(words));
    return cross_entropy / static_cast<double>(pairs);  // ce-mean, alias cross-entropy
  }
};

// One input line: the pair to score, or a line that could not be read (--skip-bad).
struct PairEntry {
  std::size_t line = 0;  // 1-based input line number
  std::string source, target;
  std::string nbest_line;  // n-best mode: the (cleaned) line, written back with a feature
  bool skipped = false;
};

class ScoreWriter {
 public:
  ScoreWriter(const ScoreArgs& args, const text::TextCodec& codec, int fd)
      : args_(args), codec_(codec), fd_(fd) {}

  // Writes one record per entry; `scores` holds the scores of the entries not skipped, in order.
  bool write(const std::vector<PairEntry>& entries, const std::vector<PairScore>& scores) {
    std::string out;
    std::size_t next = 0;
    for (const PairEntry& e : entries) {
      if (e.skipped) {
        if (args_.summary.empty())
          out += args_.nbest.empty() && args_.format == "jsonl" ? "{\"skipped\":true}\n" : "\n";
        continue;
      }
      const PairScore& s = scores[next++];
      summary_.cross_entropy -= s.score;
      summary_.words += s.target_ids.size();
      summary_.pairs += 1;
      if (!args_.summary.empty()) continue;
      if (!args_.nbest.empty()) {
        out += with_feature(e.nbest_line, s.normalized_score) + "\n";
      } else if (args_.format == "jsonl") {
        nlohmann::json j;
        j["score"] = s.score;
        j["normalized_score"] = s.normalized_score;
        std::vector<std::string> tokens;
        for (std::int32_t id : s.target_ids) tokens.push_back(codec_.target_vocab().piece(id));
        j["tokens"] = tokens;
        j["token_scores"] = s.token_scores;
        out += j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
      } else {
        out += fixed(s.normalized_score);
        if (args_.word_scores) {
          out += " ||| WordScores=";
          for (float w : s.token_scores) out += " " + fixed(w);
        }
        out += "\n";
      }
    }
    return write_all(fd_, out);
  }

  bool finish() {
    if (args_.summary.empty()) return true;
    const float value = static_cast<float>(summary_.value(args_.summary));
    if (args_.format != "jsonl") return write_all(fd_, fixed(value) + "\n");
    nlohmann::json j;
    j["summary"] = args_.summary;
    j["value"] = value;
    return write_all(fd_, j.dump() + "\n");
  }

 private:
  // Marian's ScoreCollectorNBest: the feature field gains "NAME= score ".
  std::string with_feature(const std::string& line, float score) const {
    std::vector<std::string> fields;
    for (std::size_t pos = 0;;) {
      const std::size_t bar = line.find("|||", pos);
      fields.push_back(line.substr(pos, bar == std::string::npos ? bar : bar - pos));
      if (bar == std::string::npos) break;
      pos = bar + 3;
    }
    fields[2] += args_.nbest_feature + "= " + marian_float(score) + " ";
    std::string joined;
    for (std::size_t i = 0; i < fields.size(); ++i) joined += (i ? "|||" : "") + fields[i];
    return joined;
  }

  const ScoreArgs& args_;
  const text::TextCodec& codec_;
  int fd_;
  Summary summary_;
};

// Reads the next window of pairs from whichever input the arguments name.
class PairReader {
 public:
  explicit PairReader(const ScoreArgs& args) : args_(args) {
    if (!args.nbest.empty()) {
      if (args.source.empty()) throw UsageError("--n-best needs --source FILE (the sources of the list)");
      std::ifstream in(args.source, std::ios::binary);
      if (!in) throw InputError(args.source + ": cannot open input file");
      for (std::string line; next_line(in, line);) {
        if (sources_.empty()) strip_bom(line);
        std::string cleaned;
        clean_text(line, cleaned);
        sources_.push_back(std::move(cleaned));
      }
      open(first_, args.nbest);
    } else if (!args.source.empty() || !args.target.empty()) {
      if (args.source.empty() || args.target.empty())
        throw UsageError("--source and --target go together (or give tab-separated pairs)");
      const std::size_t s = count_lines(args.source), t = count_lines(args.target);
      if (s != t)
        throw InputError(args.source + " has " + std::to_string(s) + " lines but " + args.target +
                         " has " + std::to_string(t));
      open(first_, args.source);
      open(second_, args.target);
    } else if (args.input != "-") {
      open(first_, args.input);
    }
  }

  // Fills `entries` with up to `window` lines; false when nothing is left.
  bool next(std::vector<PairEntry>& entries, std::size_t window) {
    entries.clear();
    std::istream& in = first_.is_open() ? static_cast<std::istream&>(first_) : std::cin;
    std::string a, b;
    while (entries.size() < window && next_line(in, a)) {
      ++line_;
      PairEntry e;
      e.line = line_;
      if (line_ == 1) strip_bom(a);
      a = clean(a);
      if (!args_.nbest.empty()) {
        try {
          e.source = nbest_source(a);
          e.target = nbest_field(a, 1);
          nbest_field(a, 2);  // the feature field, which gains the new score
        } catch (const InputError& error) {
          skip_or_throw(e, error.what());
        }
        e.nbest_line = a;
      } else if (second_.is_open()) {
        next_line(second_, b);
        if (line_ == 1) strip_bom(b);
        e.source = std::move(a);
        e.target = clean(b);
      } else {
        const std::size_t tab = a.find('\t');
        if (tab == std::string::npos) {
          skip_or_throw(e, where() + " has no tab between source and target");
        } else if (a.find('\t', tab + 1) != std::string::npos) {
          skip_or_throw(e, where() + " has more than two tab-separated fields (source<TAB>target)");
        } else {
          e.source = a.substr(0, tab);
          e.target = a.substr(tab + 1);
        }
      }
      entries.push_back(std::move(e));
    }
    return !entries.empty();
  }

 private:
  // The line made safe (input_text.h); invalid UTF-8 is a warning naming the line.
  std::string clean(const std::string& line) const {
    std::string out;
    const CleanReport report = clean_text(line, out);
    if (report.invalid_utf8 > 0) log::warning(invalid_utf8_message(line_, report.invalid_utf8));
    return out;
  }
  void skip_or_throw(PairEntry& e, const std::string& problem) const {
    if (!args_.skip_bad) throw InputError(problem);
    log::warning(problem + "; its record is left empty (--skip-bad)");
    e.skipped = true;
  }
  static void open(std::ifstream& f, const std::string& path) {
    f.open(path, std::ios::binary);
    if (!f) throw InputError(path + ": cannot open input file");
  }
  std::string where() const {
    const std::string& file = !args_.nbest.empty() ? args_.nbest
                              : args_.input == "-" ? std::string("standard input")
                                                   : args_.input;
    return file + ": line " + std::to_string(line_);
  }
  // Field k of "id ||| hypothesis ||| features ||| score", trimmed.
  std::string nbest_field(const std::string& line, int k) const {
    std::size_t pos = 0;
    for (int i = 0; i < k; ++i) {
      pos = line.find("|||", pos);
      if (pos == std::string::npos) throw InputError(where() + " is not an n-best line (id ||| text ||| ...)");
      pos += 3;
    }
    std::size_t end = line.find("|||", pos);
    std::string f = line.substr(pos, end == std::string::npos ? std::string::npos : end - pos);
    const std::size_t first = f.find_first_not_of(' '), last = f.find_last_not_of(' ');
    return first == std::string::npos ? std::string() : f.substr(first, last - first + 1);
  }
  const std::string& nbest_source(const std::string& line) const {
    const std::string id = line.substr(0, line.find("|||"));
    std::size_t k = 0;
    try {
      k = std::stoul(id);
    } catch (const std::exception&) {
      throw InputError(where() + ": '" + id + "' is not a sentence number");
    }
    if (k >= sources_.size())
      throw InputError(where() + ": sentence " + std::to_string(k) + " but " + args_.source +
                       " has " + std::to_string(sources_.size()) + " lines");
    return sources_[k];
  }

  const ScoreArgs& args_;
  std::ifstream first_, second_;
  std::vector<std::string> sources_;
  std::size_t line_ = 0;
};

// A side of a pair over the token limit: truncated to fit with a warning (--long-lines split or
// truncate: a pair cannot be split, its sides must stay aligned), or an InputError (fail).
void fit_to_limit(std::string& text, std::size_t line, const char* side, const TokenLimit& limit,
                  LongLines mode, const TokenCounter& count) {
  const std::size_t tokens = text.size() <= kCountBytes
                                 ? count(text)
                                 : count_in_chunks(text, limit.tokens, count).tokens;
  if (tokens <= limit.tokens) return;
  const std::string problem = too_long_message(line, tokens, limit, side);
  if (mode == LongLines::fail)
    throw InputError(problem + "; --long-lines truncate would score it truncated");
  text = truncate_to_limit(text, limit.tokens, count);
  log::warning(problem + ": truncated to fit (a pair cannot be split)");
}

void run_score(ScoreArgs& args, const Context& context) {
  std::signal(SIGPIPE, SIG_IGN);
  if (args.quiet) log::set_level(log::Level::quiet);
  if (args.normalize_option->count() > 0 && args.normalize_option->results().back().empty())
    args.normalize = 1.0f;  // a bare --normalize means 1, as in Marian
  if (args.max_length < 1) throw UsageError("--max-length: must be at least 1");
  if (args.summary_option->count() > 0 && args.summary.empty())
    args.summary = "cross-entropy";  // a bare --summary, as in marian-scorer
  if (!args.summary.empty() && args.summary != "cross-entropy" && args.summary != "ce-mean" &&
      args.summary != "ce-mean-words" && args.summary != "ce-sum" && args.summary != "perplexity")
    throw UsageError("--summary " + args.summary +
                     ": not a corpus figure (cross-entropy, ce-mean, ce-mean-words, ce-sum, "
                     "perplexity)");
  // Every combination works or is refused here, never silently ignored.
  if (!args.summary.empty() && args.normalize != 0.0f)
    throw UsageError("--summary cannot be combined with --normalize (as in marian-scorer)");
  if (!args.summary.empty() && (args.word_scores || !args.nbest.empty()))
    throw UsageError(std::string("--summary prints one corpus figure; it cannot be combined with ") +
                     (args.word_scores ? "--word-scores" : "--n-best"));
  if (!args.nbest.empty() && args.format == "jsonl")
    throw UsageError("--n-best writes the list back with one more feature (Marian's n-best "
                     "format); --format jsonl does not apply to it");
  if (!args.nbest.empty() && args.word_scores)
    throw UsageError("--word-scores cannot be combined with --n-best (an n-best line has no "
                     "place for them)");
  set_num_threads(args.threads);
  PairReader reader(args);
  const auto model = formats::load_model(model_path(args.model, context), args.spm);
  args.options.normalize = args.normalize;
  const Scorer scorer(model, args.options);
  const File output(args.output, true);
  ScoreWriter writer(args, model->codec(), output.fd());
  Progress progress(!args.quiet && log::stderr_is_terminal() && args.output != "-");
  const TokenLimit limit = TokenLimit::of(args.max_length, 0);
  const LongLines long_lines = *parse_long_lines(args.long_lines);
  const text::TextCodec& codec = model->codec();
  const TokenCounter source_count = [&](const std::string& s) { return codec.encode_source(s).size(); };
  const TokenCounter target_count = [&](const std::string& s) { return codec.encode_target(s).size(); };
  std::vector<PairEntry> entries;
  std::vector<std::pair<std::string, std::string>> pairs;
  std::size_t done = 0;
  const std::atomic<bool>& stop = stop_gracefully();  // stops between batches
  // Windows grow from one batch to kWindow pairs: the first scores come out after one batch,
  // and a stop loses at most the window in progress.
  std::size_t window = static_cast<std::size_t>(std::max<dim_t>(args.options.batch_size, 1));
  while (reader.next(entries, window)) {
    window = std::min(window * 2, kWindow);
    pairs.clear();
    for (PairEntry& e : entries) {
      if (e.skipped) continue;
      fit_to_limit(e.source, e.line, "source ", limit, long_lines, source_count);
      fit_to_limit(e.target, e.line, "target ", limit, long_lines, target_count);
      pairs.emplace_back(std::move(e.source), std::move(e.target));
    }
    const std::vector<PairScore> scores = scorer.score(pairs, &stop);
    if (scores.size() != pairs.size()) break;  // stopped: this window is not written
    for (std::size_t i = 0, k = 0; i < entries.size(); ++i) {
      if (entries[i].skipped) continue;
      if (scores[k++].beyond_positions)
        log::warning("pair " + std::to_string(entries[i].line) + " is longer than the model's " +
                     std::to_string(model->config().max_positions) +
                     " positions; scored with the last position repeated, as Marian does");
    }
    if (!writer.write(entries, scores)) return;  // reader gone: stop quietly
    done += entries.size();
    progress.update(done, false);
    if (stop.load()) break;
  }
  progress.update(done, true);
  if (stopped_by_signal()) throw Interrupted(done);
  writer.finish();
}

}  // namespace

void set_score_command(CLI::App& app, const Context& context) {
  auto args = std::make_shared<ScoreArgs>();
  CLI::App* cmd = app.add_subcommand(
      "score", "Score (source, target) pairs: log-probability of the target, like marian-scorer");
  add_log_flag(*cmd);  // first: the errors of every other option reach the log too
  add_model_flags(*cmd, args->model);
  cmd->add_option("--source", args->source, "Source sentences, one per line");
  cmd->add_option("--target", args->target, "Target sentences, one per line (as many as --source)");
  // marian-scorer's -t SOURCE TARGET.
  cmd->add_option_function<std::vector<std::string>>(
         "-t,--train-sets",
         [args](const std::vector<std::string>& files) {
           args->source = files[0];
           args->target = files[1];
         },
         "Marian's spelling of --source FILE --target FILE")
      ->expected(2)
      ->type_name("SOURCE TARGET");
  cmd->add_option("-i,--input", args->input, "Tab-separated 'source<TAB>target' lines ('-' = stdin)");
  cmd->add_option("-o,--output", args->output, "Output file ('-' = stdout)");
  args->normalize_option =
      cmd->add_option("-n,--normalize", args->normalize,
                      "Divide each score by target length^ARG (length incl. </s>); a bare -n means 1 "
                      "[default: 0]")
          ->expected(0, 1);
  cmd->add_flag("--word-scores", args->word_scores, "Append ' ||| WordScores= ...' per token [default: off]");
  args->summary_option =
      cmd->add_option("--summary", args->summary,
                      "Print one corpus figure instead of per-pair scores: cross-entropy (= "
                      "ce-mean, what a bare --summary means), ce-mean-words, ce-sum, perplexity "
                      "[default: none]")
          ->type_name("KIND")
          ->expected(0, 1);
  cmd->add_option("--format", args->format, "Output: text (one score per line) or jsonl [default: text]")
      ->check(CLI::IsMember({"text", "jsonl"}));
  cmd->add_option("--n-best", args->nbest,
                  "Rescore a Marian/Moses n-best list (needs --source); adds a feature to each line "
                  "[default: none]");
  cmd->add_option("--n-best-feature", args->nbest_feature, "Name of the added feature [default: " + args->nbest_feature + "]");
  cmd->add_option("--batch-size,--mini-batch", args->options.batch_size, "Pairs per batch [default: " + std::to_string(args->options.batch_size) + "]")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--batch-tokens,--mini-batch-words", args->options.batch_tokens,
                  "Target tokens per batch, padding included; 0 uses --batch-size [default: 0]")
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("--threads,--cpu-threads", args->threads,
                  "Compute threads; 0 uses OMP_NUM_THREADS if set, else all cores [default: 0]")
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("--source-spm", args->spm.source, "Source SentencePiece model, for model folders without one (CTranslate2) "
                  "[default: none]");
  cmd->add_option("--target-spm", args->spm.target, "Target SentencePiece model, for model folders without one (CTranslate2) "
                  "[default: none]");
  cmd->add_option("--max-length", args->max_length,
                  "Most tokens of a source or target (</s> included); longer sides are truncated "
                  "to fit with a warning, as a pair cannot be split [default: " +
                      std::to_string(args->max_length) + "]");
  cmd->add_option("--long-lines", args->long_lines,
                  "A side over --max-length: split or truncate (both truncate it, with a warning) "
                  "or fail [default: " + args->long_lines + "]")
      ->check(CLI::IsMember({"split", "truncate", "fail"}));
  cmd->add_flag("--skip-bad", args->skip_bad,
                "A line without a tab (or not an n-best line) gets an empty record and a warning "
                "instead of stopping with an error [default: off]");
  cmd->add_flag("--quiet,--quiet-translation", args->quiet,
                "No progress line and no warnings on stderr [default: off]");
  cmd->callback([args, &context]() { run_score(*args, context); });
}

}  // namespace s2s::app
