// s2s score: log-probabilities of (source, target) pairs, like marian-scorer.
// Pairs come from --source/--target files (same line counts), from tab-separated lines (-i or
// stdin), or from --source plus a Marian/Moses n-best list (--n-best), which is written back with
// one more feature. Output keeps input order and one record per pair.
#include <cmath>
#include <csignal>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>

#include "commands.h"
#include "io.h"
#include "s2s/core/log.h"
#include "s2s/core/threads.h"
#include "s2s/formats/detect.h"
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
  std::string format = "text";
  CLI::Option* normalize_option = nullptr;
  float normalize = 0.0f;
  bool word_scores = false;
  bool quiet = false;
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
    return cross_entropy / static_cast<double>(pairs);  // ce-mean
  }
};

class ScoreWriter {
 public:
  ScoreWriter(const ScoreArgs& args, const text::TextCodec& codec, int fd)
      : args_(args), codec_(codec), fd_(fd) {}

  // Writes one record per pair; `nbest_lines` holds the n-best line of each pair in n-best mode.
  bool write(const std::vector<PairScore>& scores, const std::vector<std::string>& nbest_lines) {
    std::string out;
    for (std::size_t i = 0; i < scores.size(); ++i) {
      const PairScore& s = scores[i];
      summary_.cross_entropy -= s.score;
      summary_.words += s.target_ids.size();
      summary_.pairs += 1;
      if (!args_.summary.empty()) continue;
      if (!args_.nbest.empty()) {
        out += with_feature(nbest_lines[i], s.normalized_score) + "\n";
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
    return write_all(fd_, fixed(static_cast<float>(summary_.value(args_.summary))) + "\n");
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
      for (std::string line; next_line(in, line);) sources_.push_back(line);
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

  // Fills `pairs` (and n-best lines) with up to kWindow entries; false when nothing is left.
  bool next(std::vector<std::pair<std::string, std::string>>& pairs,
            std::vector<std::string>& nbest_lines) {
    pairs.clear();
    nbest_lines.clear();
    std::istream& in = first_.is_open() ? static_cast<std::istream&>(first_) : std::cin;
    std::string a, b;
    while (pairs.size() < kWindow && next_line(in, a)) {
      ++line_;
      if (!args_.nbest.empty()) {
        pairs.emplace_back(nbest_source(a), nbest_field(a, 1));
        nbest_lines.push_back(a);
      } else if (second_.is_open()) {
        next_line(second_, b);
        pairs.emplace_back(a, b);
      } else {
        const std::size_t tab = a.find('\t');
        if (tab == std::string::npos)
          throw InputError(where() + " has no tab between source and target");
        pairs.emplace_back(a.substr(0, tab), a.substr(tab + 1));
      }
    }
    return !pairs.empty();
  }

 private:
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

void run_score(ScoreArgs& args, const Context& context) {
  std::signal(SIGPIPE, SIG_IGN);
  if (args.quiet) log::set_level(log::Level::quiet);
  if (args.normalize_option->count() > 0 && args.normalize_option->results().back().empty())
    args.normalize = 1.0f;  // a bare --normalize means 1, as in Marian
  if (!args.summary.empty() && args.normalize != 0.0f)
    throw UsageError("--summary cannot be combined with --normalize (as in marian-scorer)");
  set_num_threads(args.threads);
  PairReader reader(args);
  const auto model = formats::load_model(model_path(args.model, context), args.spm);
  args.options.normalize = args.normalize;
  const Scorer scorer(model, args.options);
  const File output(args.output, true);
  ScoreWriter writer(args, model->codec(), output.fd());
  Progress progress(!args.quiet && log::stderr_is_terminal() && args.output != "-");
  std::vector<std::pair<std::string, std::string>> pairs;
  std::vector<std::string> nbest_lines;
  std::size_t done = 0;
  while (reader.next(pairs, nbest_lines)) {
    const std::vector<PairScore> scores = scorer.score(pairs);
    for (std::size_t i = 0; i < scores.size(); ++i)
      if (scores[i].beyond_positions)
        log::warning("pair " + std::to_string(done + i + 1) + " is longer than the model's " +
                     std::to_string(model->config().max_positions) +
                     " positions; scored with the last position repeated, as Marian does");
    if (!writer.write(scores, nbest_lines)) return;  // reader gone: stop quietly
    done += pairs.size();
    progress.update(done, false);
  }
  progress.update(done, true);
  writer.finish();
}

}  // namespace

void set_score_command(CLI::App& app, const Context& context) {
  auto args = std::make_shared<ScoreArgs>();
  CLI::App* cmd = app.add_subcommand(
      "score", "Score (source, target) pairs: log-probability of the target, like marian-scorer");
  cmd->add_option("-m,--model", args->model, "Model folder (default: the shipped model)");
  cmd->add_option("--source", args->source, "Source sentences, one per line");
  cmd->add_option("--target", args->target, "Target sentences, one per line (as many as --source)");
  cmd->add_option("-i,--input", args->input, "Tab-separated 'source<TAB>target' lines ('-' = stdin)");
  cmd->add_option("-o,--output", args->output, "Output file ('-' = stdout)");
  args->normalize_option =
      cmd->add_option("-n,--normalize", args->normalize,
                      "Divide each score by target length^ARG (length incl. </s>); bare: 1")
          ->expected(0, 1);
  cmd->add_flag("--word-scores", args->word_scores, "Append ' ||| WordScores= ...' per token");
  cmd->add_option("--summary", args->summary, "Print one corpus figure instead of per-pair scores")
      ->check(CLI::IsMember({"ce-mean", "ce-mean-words", "ce-sum", "perplexity"}));
  cmd->add_option("--format", args->format, "Output: text (one score per line) or jsonl")
      ->check(CLI::IsMember({"text", "jsonl"}));
  cmd->add_option("--n-best", args->nbest,
                  "Rescore a Marian/Moses n-best list (needs --source); adds a feature to each line");
  cmd->add_option("--n-best-feature", args->nbest_feature, "Name of the added feature");
  cmd->add_option("--batch-size", args->options.batch_size, "Pairs per batch")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--batch-tokens", args->options.batch_tokens,
                  "Target tokens per batch, padding included; 0 uses --batch-size")
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("--threads", args->threads, "Compute threads (0: OMP_NUM_THREADS or all cores)")
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("--source-spm", args->spm.source, "Source SentencePiece model (CTranslate2 folders)");
  cmd->add_option("--target-spm", args->spm.target, "Target SentencePiece model (CTranslate2 folders)");
  cmd->add_flag("--quiet", args->quiet, "No progress line and no warnings on stderr");
  cmd->callback([args, &context]() { run_score(*args, context); });
}

}  // namespace s2s::app
