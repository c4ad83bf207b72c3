#include "s2s/pipeline/settings.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <optional>
#include <set>
#include <sstream>
#include <type_traits>
#include <variant>

#include "s2s/core/error.h"
#include "s2s/core/strings.h"
#include "s2s/core/threads.h"
#include "s2s/pipeline/marian_options.h"

namespace s2s::pipeline {
namespace {

// A row's target: a function returning the field it sets in the settings S of its command. The
// field's type decides how a value is parsed (whole number, number, on/off, output format name).
template <typename S>
struct Fields {
  using Int = dim_t& (*)(S&);
  using Float = float& (*)(S&);
  using Bool = bool& (*)(S&);
  using Format = OutputFormat& (*)(S&);
  using String = std::string& (*)(S&);
  using Lines = LongLines& (*)(S&);
  using Precision = ops::Precision& (*)(S&);
  using Sampling = s2s::search::Sampling& (*)(S&);
  using Alignment = AlignmentOutput& (*)(S&);
  using Words = std::vector<std::string>& (*)(S&);
};
template <typename S>
using Field =
    std::variant<typename Fields<S>::Int, typename Fields<S>::Float, typename Fields<S>::Bool,
                 typename Fields<S>::Format, typename Fields<S>::String, typename Fields<S>::Lines,
                 typename Fields<S>::Precision, typename Fields<S>::Sampling,
                 typename Fields<S>::Alignment, typename Fields<S>::Words>;

// clang-format off
#define S2S_FIELD(member) +[](Settings& s) -> auto& { return s.member; }
// The SentencePiece rows both commands have.
#define S2S_SPM_ROWS \
  {"source-spm", "", nullptr, false, Bound::any, nullptr, S2S_FIELD(source_spm), kSourceSpmHelp}, \
  {"target-spm", "", nullptr, false, Bound::any, nullptr, S2S_FIELD(target_spm), kTargetSpmHelp}
// clang-format on

enum class Bound { any, non_negative, at_least_one, positive };

template <typename S>
struct OptionSpec {
  const char* key;         // the long flag without "--", and the YAML key
  const char* short_flag;  // e.g. "-b", or ""
  const char* marian_key;  // Marian's YAML name when it differs, or nullptr
  bool from_model;         // also read from the model's decoder.yml (changes translations)
  Bound bound;
  const char* bare_value;  // what the flag means given without a value, or nullptr
  Field<S> field;
  const char* help;
};

// Help texts of the rows both commands have.
constexpr const char* kSourceSpmHelp =
    "Source SentencePiece model, for model folders without one (CTranslate2)";
constexpr const char* kTargetSpmHelp =
    "Target SentencePiece model, for model folders without one (CTranslate2)";
constexpr const char* kPrecisionHelp =
    "What the linear layers compute in: float32, bfloat16 (AVX512_BF16) or int8 (weights "
    "quantized per channel at load, activations per row); the rest stays float32";
constexpr const char* kQuietHelp = "No progress line and no warnings on stderr";

// The defaults are not repeated here: they are the struct defaults (SearchOptions holds
// marian-decoder's), and the help text shows them.
namespace translate_table {
using Settings = TranslateSettings;
const OptionSpec<Settings> kRows[] = {
    {"beam-size", "-b", nullptr, true, Bound::at_least_one, nullptr,
     S2S_FIELD(translate.search.beam_size), "Beam size; 1 is greedy search"},
    {"n-best", "", nullptr, true, Bound::any, nullptr, S2S_FIELD(translate.search.n_best),
     "Print the whole final beam, best first: Marian's n-best lines (--format text then "
     "means nbest), or an n_best list with --format jsonl"},
    {"normalize", "-n", nullptr, true, Bound::any, "1", S2S_FIELD(translate.search.normalize),
     "Length normalisation: rank by score / length^ARG; a bare -n means 1"},
    {"word-penalty", "", nullptr, true, Bound::any, nullptr,
     S2S_FIELD(translate.search.word_penalty),
     "Subtracted from a hypothesis' score once per target token"},
    {"max-length-factor", "", nullptr, true, Bound::positive, nullptr,
     S2S_FIELD(translate.search.max_length_factor),
     "Longest translation, as a multiple of the source length"},
    {"allow-unk", "", nullptr, true, Bound::any, nullptr, S2S_FIELD(translate.search.allow_unk),
     "Allow <unk> in translations"},
    {"min-length", "", nullptr, true, Bound::non_negative, nullptr,
     S2S_FIELD(translate.search.min_length), "No </s> before this many target tokens"},
    {"repetition-penalty", "", nullptr, false, Bound::positive, nullptr,
     S2S_FIELD(translate.search.repetition_penalty),
     "CTranslate2's repetition penalty: the logits of tokens already in a hypothesis are "
     "multiplied by it when negative, divided by it otherwise (> 1 discourages repeats; 1 is off)"},
    {"no-repeat-ngram", "", nullptr, false, Bound::non_negative, nullptr,
     S2S_FIELD(translate.search.no_repeat_ngram),
     "No n-gram of this many tokens appears twice in a translation (CTranslate2's "
     "no_repeat_ngram_size); 0 is off"},
    {"sampling", "", "output-sampling", false, Bound::any, "full",
     S2S_FIELD(translate.search.sampling),
     "Random samples instead of beam search (back-translation): full, topk K (from the K most "
     "likely tokens) or topp P (from the most likely tokens holding probability P); one per "
     "line, or --beam-size of them with --n-best; a bare --sampling means full"},
    {"temperature", "", nullptr, false, Bound::positive, nullptr,
     S2S_FIELD(translate.search.temperature),
     "Sampling: log-probabilities are divided by it first (< 1 sharper, > 1 flatter)"},
    {"seed", "", nullptr, false, Bound::non_negative, nullptr, S2S_FIELD(translate.search.seed),
     "Sampling: with each line's text, decides its random draws (the same command gives the same "
     "samples, also with other --threads; other batches, from --batch-size, --batch-tokens, "
     "--maxi-batch or --workers, can change a few lines' samples: the model's scores differ in "
     "their last bits between batch layouts)"},
    {"prefix", "", nullptr, false, Bound::any, nullptr, S2S_FIELD(translate.target_prefix),
     "Each input line is source<TAB>prefix: the translation starts with the prefix and goes on "
     "from there (CTranslate2's target_prefix: the prefix tokens score 0); see --prefix-file"},
    {"glossary", "", nullptr, false, Bound::any, nullptr, S2S_FIELD(translate.glossary_file),
     "Terminology: a TSV file of 'source term<TAB>target term' lines; a line containing a source "
     "term (whole words) is translated with its target term (constrained beam search); a line "
     "whose terms cannot all be placed gets its plain translation and a warning"},
    {"glossary-ignore-case", "", nullptr, false, Bound::any, nullptr,
     S2S_FIELD(translate.glossary_ignore_case),
     "--glossary: match source terms ignoring ASCII case (A-Z only; other letters are compared "
     "as they are)"},
    {"shortlist", "", nullptr, false, Bound::any, nullptr, S2S_FIELD(shortlist),
     "Lexical shortlist, as Marian's: each batch may produce only the target pieces its source "
     "pieces translate to, and the output layer computes only those (faster on large "
     "vocabularies). FILE [first best threshold] for Marian's text lex.s2t (defaults 100 100 0), "
     "FILE [check] for its binary shortlist (Bergamot's lex.*.bin), FILE for CTranslate2's "
     "vmap.txt; without it, the model folder's own (lex.*.bin, lex.*.s2t or vmap.txt) if it has "
     "one; off: none"},
    {"alignment", "", nullptr, false, Bound::any, "hard", S2S_FIELD(translate.alignment),
     "Word alignment after each translation, as marian-decoder prints it (' ||| 0-0 1-2 ...', "
     "source-target piece positions, </s> included): hard (the most attended source piece of "
     "each target piece; a bare --alignment), a threshold T (every pair above T) or soft (all "
     "weights); jsonl gets \"piece_alignment\", and word pairs with character spans "
     "(\"alignment\", \"alignment_spans\"). Marian models (transformer-guided-alignment-"
     "layer) and CTranslate2 models with one alignment head"},
    {"target-lang", "", nullptr, false, Bound::any, nullptr, S2S_FIELD(target_lang),
     "Multilingual models: target language code: OPUS-MT's deu, put before every line as "
     ">>deu<<; NLLB-200's deu_Latn (or de), M2M-100's de, forced as the first target token"},
    {"source-lang", "", nullptr, false, Bound::any, nullptr, S2S_FIELD(source_lang),
     "NLLB-200 / M2M-100: source language code (eng_Latn or en; M2M-100: en), put in the source "
     "where the model expects it"},
    S2S_SPM_ROWS,
    {"batch-size", "", "mini-batch", false, Bound::at_least_one, nullptr,
     S2S_FIELD(translate.batch_size), "Sentences per batch"},
    {"batch-tokens", "", "mini-batch-words", false, Bound::non_negative, nullptr,
     S2S_FIELD(translate.batch_tokens),
     "Source tokens per batch, padding included; 0 uses --batch-size"},
    {"max-length", "", nullptr, false, Bound::at_least_one, nullptr,
     S2S_FIELD(translate.max_length),
     "Most source tokens the model is given at once (</s> included; never more than a learned "
     "position table), and most tokens of a translation; longer lines are handled as "
     "--long-lines says"},
    {"sentence-split", "", nullptr, false, Bound::any, nullptr, S2S_FIELD(translate.sentence_split),
     "Cut each line into sentences (ICU), translated as units and joined with the whitespace "
     "between them: the source language whose abbreviations are known (en, de, fr, ...; on "
     "means en), or off: a line is one unit, as in Marian, unless it is over --max-length"},
    {"short-translations", "", nullptr, false, Bound::any, nullptr,
     S2S_FIELD(translate.short_translations),
     "A sentence whose translation ends under 0.6 tokens per source token (sources of 8 or "
     "more): retry "
     "(search it again with a wider beam, keep the longer, warn if still short), warn, or off "
     "(the search alone, as marian-decoder)"},
    {"protect", "", nullptr, false, Bound::any, "on", S2S_FIELD(translate.protect),
     "Keep placeholders ({0}, %s, $HOME), e-mail addresses, URLs, paths and characters the "
     "model cannot spell exactly: masked before translation, put back after (placed by the word "
     "alignment when the model moved or dropped them); off: the model reads lines as they are"},
    {"html", "", nullptr, false, Bound::any, nullptr, S2S_FIELD(translate.html),
     "Each line is an HTML fragment: its tags taken out, its text translated, the tags put back "
     "around the words they enclosed (by the word alignment); an ill-formed line is translated "
     "as text, with a warning"},
    {"long-lines", "", nullptr, false, Bound::any, nullptr, S2S_FIELD(translate.long_lines),
     "A sentence (or, with --sentence-split off, a line) over --max-length: split (at sentence "
     "ends, then between words; translations joined with a space), truncate (keep its first "
     "tokens) or fail"},
    {"maxi-batch", "", nullptr, false, Bound::at_least_one, nullptr, S2S_FIELD(maxi_batch),
     "Lines read at a time (and sorted by length) when input comes faster than it is translated"},
    {"dedup", "", nullptr, false, Bound::any, nullptr, S2S_FIELD(dedup),
     "Translate each distinct line once and copy its result to every repeat (the same "
     "translations; for corpora that repeat lines); finished lines are kept within --dedup-memory, "
     "the least "
     "recently used dropped first"},
    {"dedup-memory", "", nullptr, false, Bound::positive, nullptr, S2S_FIELD(dedup_memory),
     "--dedup: megabytes the finished lines may take, counted roughly (the lines, their "
     "translations and tokens); fractions allowed"},
    {"threads", "", "cpu-threads", false, Bound::non_negative, nullptr, S2S_FIELD(threads),
     "Compute threads (of each worker), at most: fewer while other processes take the cores; "
     "0 uses exactly OMP_NUM_THREADS if set, else all cores (divided among the workers)"},
    {"workers", "", nullptr, false, Bound::at_least_one, nullptr, S2S_FIELD(workers),
     "Translators running at once on one shared model, each on its own part of the input (for "
     "large inputs; one worker with all threads gives the fastest single sentence)"},
    {"precision", "", nullptr, false, Bound::any, nullptr, S2S_FIELD(precision), kPrecisionHelp},
    {"format", "", nullptr, false, Bound::any, nullptr, S2S_FIELD(format),
     "Output: text, nbest (id ||| translation ||| F0= score ||| normalized score) or jsonl"},
    {"no-spm-decode", "", nullptr, false, Bound::any, nullptr, S2S_FIELD(no_spm_decode),
     "Print translations as their target SentencePiece pieces separated by spaces instead of "
     "detokenized text, in every --format (as marian-decoder --no-spm-decode)"},
    {"word-scores", "", nullptr, false, Bound::any, nullptr, S2S_FIELD(word_scores),
     "Append ' ||| WordScores= s1 s2 ...' to each translation (text) or hypothesis (nbest), as "
     "marian-decoder does: each target piece's log-probability, </s> included, not normalized "
     "(jsonl has them as token_scores)"},
    {"tsv", "", nullptr, false, Bound::any, nullptr, S2S_FIELD(tsv),
     "Tab-separated input (Marian's --tsv): the first field of each line is translated (with "
     "--prefix the second is the prefix); a line with more than --tsv-fields fields is an error"},
    {"tsv-fields", "", nullptr, false, Bound::at_least_one, nullptr, S2S_FIELD(tsv_fields),
     "--tsv: the most fields a line may have (missing ones are empty, as in Marian)"},
    {"quiet", "", "quiet-translation", false, Bound::any, nullptr, S2S_FIELD(quiet), kQuietHelp},
};
}  // namespace translate_table

// marian-scorer's options; the input files (--source, --target, -i, --n-best FILE) are the
// command line's, not settings.
namespace score_table {
using Settings = ScoreSettings;
const OptionSpec<Settings> kRows[] = {
    {"normalize", "-n", nullptr, false, Bound::any, "1", S2S_FIELD(score.normalize),
     "Divide each score by target length^ARG (length incl. </s>); a bare -n means 1"},
    {"alignment", "", nullptr, false, Bound::any, "hard", S2S_FIELD(score.alignment),
     "Word alignment of each pair from the teacher-forced pass, after the score as "
     "marian-scorer prints it (' ||| 0-0 1-2 ...'): hard (a bare --alignment), a threshold T or "
     "soft, as in translate"},
    {"word-scores", "", nullptr, false, Bound::any, nullptr, S2S_FIELD(word_scores),
     "Append ' ||| WordScores= ...' with each target token's log-probability"},
    {"summary", "", nullptr, false, Bound::any, "cross-entropy", S2S_FIELD(summary),
     "Print one corpus figure instead of per-pair scores: cross-entropy (= ce-mean, what a bare "
     "--summary means), ce-mean-words, ce-sum, perplexity"},
    {"format", "", nullptr, false, Bound::any, nullptr, S2S_FIELD(format),
     "Output: text (one score per line) or jsonl (score, normalized_score, tokens, "
     "token_scores)"},
    {"n-best-feature", "", nullptr, false, Bound::any, nullptr, S2S_FIELD(n_best_feature),
     "Name of the feature --n-best adds to each line"},
    {"source-lang", "", nullptr, false, Bound::any, nullptr, S2S_FIELD(source_lang),
     "NLLB-200 / M2M-100: source language code, placed in the source as translate places it"},
    {"target-lang", "", nullptr, false, Bound::any, nullptr, S2S_FIELD(target_lang),
     "NLLB-200 / M2M-100: target language code, given to the decoder first as translate forces "
     "it (not scored; counted in the length -n divides by)"},
    S2S_SPM_ROWS,
    {"batch-size", "", "mini-batch", false, Bound::at_least_one, nullptr,
     S2S_FIELD(score.batch_size), "Pairs per batch"},
    {"batch-tokens", "", "mini-batch-words", false, Bound::non_negative, nullptr,
     S2S_FIELD(score.batch_tokens),
     "Target tokens per batch, padding included; 0 uses --batch-size"},
    {"max-length", "", nullptr, false, Bound::at_least_one, nullptr, S2S_FIELD(max_length),
     "Most tokens of a source or target (</s> included); longer sides are handled as "
     "--long-lines says"},
    {"maxi-batch", "", nullptr, false, Bound::at_least_one, nullptr, S2S_FIELD(maxi_batch),
     "Pairs read at a time (and sorted by target length); the first windows are smaller, so "
     "that the first scores come out after one batch"},
    {"long-lines", "", nullptr, false, Bound::any, nullptr, S2S_FIELD(long_lines),
     "A side over --max-length: split or truncate (both truncate it, with a warning: a pair "
     "cannot be split) or fail"},
    {"threads", "", "cpu-threads", false, Bound::non_negative, nullptr, S2S_FIELD(threads),
     "Compute threads, at most: fewer while other processes take the cores; 0 uses exactly "
     "OMP_NUM_THREADS if set, else all cores"},
    {"precision", "", nullptr, false, Bound::any, nullptr, S2S_FIELD(precision), kPrecisionHelp},
    {"skip-bad", "", nullptr, false, Bound::any, nullptr, S2S_FIELD(skip_bad),
     "A line without a tab (or not an n-best line) gets an empty record and a warning instead "
     "of stopping with an error"},
    {"quiet", "", "quiet-translation", false, Bound::any, nullptr, S2S_FIELD(quiet), kQuietHelp},
};
}  // namespace score_table

#undef S2S_SPM_ROWS
#undef S2S_FIELD

// Each command's rows, and its name for messages.
template <typename S>
struct Table;
template <>
struct Table<TranslateSettings> {
  static constexpr const auto& rows = translate_table::kRows;
  static constexpr const char* command = "translate";
};
template <>
struct Table<ScoreSettings> {
  static constexpr const auto& rows = score_table::kRows;
  static constexpr const char* command = "score";
};

template <typename T>
bool parse_number(const std::string& text, T& value) {
  const char* end = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(text.data(), end, value);
  return ec == std::errc() && ptr == end;
}

bool parse_bool(std::string text, bool& value) {
  for (char& c : text) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  // YAML 1.1 spellings, which Marian's configs use, and what CLI11 stores for a given flag.
  const bool is_true = text == "true" || text == "yes" || text == "on" || text == "1";
  const bool is_false = text == "false" || text == "no" || text == "off" || text == "0";
  if (is_true || is_false) value = is_true;
  return is_true || is_false;
}

// "off", "full", "topk K" or "topp P" (Marian's --output-sampling spells the first two so).
std::optional<search::Sampling> parse_sampling(const std::string& text) {
  search::Sampling sampling;
  const std::size_t space = text.find(' ');
  const std::string mode = text.substr(0, space);
  const std::string value = space == std::string::npos ? "" : text.substr(space + 1);
  if ((mode == "off" || mode == "full") && value.empty()) {
    sampling.kind = mode == "off" ? search::Sampling::Kind::off : search::Sampling::Kind::full;
    return sampling;
  }
  if (mode == "topk" && parse_number(value, sampling.k) && sampling.k >= 1) {
    sampling.kind = search::Sampling::Kind::topk;
    return sampling;
  }
  if (mode == "topp" && parse_number(value, sampling.p) && sampling.p > 0.0f && sampling.p <= 1.0f) {
    sampling.kind = search::Sampling::Kind::topp;
    return sampling;
  }
  return std::nullopt;
}

std::string sampling_name(const search::Sampling& s) {
  switch (s.kind) {
    case search::Sampling::Kind::off:
      return "off";
    case search::Sampling::Kind::full:
      return "full";
    case search::Sampling::Kind::topk:
      return "topk " + std::to_string(s.k);
    case search::Sampling::Kind::topp:
      return "topp " + marian_float(s.p);
  }
  return "off";
}

template <std::size_t N>
std::string choices(const char* const (&names)[N]) {
  return join(std::vector<std::string>(std::begin(names), std::end(names)), ", ");
}

// Sets spec's field from text; `where` names the flag or file and key for the message.
template <typename ErrorType, typename S>
void set_value(const OptionSpec<S>& spec, const std::string& text, const std::string& where,
               S& settings) {
  using F = Fields<S>;
  auto fail = [&](const std::string& what) { throw ErrorType(where + ": '" + text + "' " + what); };
  auto check_bound = [&](double v) {
    if (spec.bound == Bound::non_negative && v < 0) fail("must be 0 or more");
    if (spec.bound == Bound::at_least_one && v < 1) fail("must be at least 1");
    if (spec.bound == Bound::positive && !(v > 0)) fail("must be more than 0");
  };
  if (auto* int_field = std::get_if<typename F::Int>(&spec.field)) {
    dim_t v = 0;
    if (!parse_number(text, v)) fail("is not a whole number");
    check_bound(static_cast<double>(v));
    (*int_field)(settings) = v;
  } else if (auto* float_field = std::get_if<typename F::Float>(&spec.field)) {
    float v = 0;
    if (!parse_number(text, v) || !std::isfinite(v)) fail("is not a number");
    check_bound(v);
    (*float_field)(settings) = v;
  } else if (auto* bool_field = std::get_if<typename F::Bool>(&spec.field)) {
    if (!parse_bool(text, (*bool_field)(settings))) fail("is not true or false");
  } else if (auto* format_field = std::get_if<typename F::Format>(&spec.field)) {
    const auto format = parse_output_format(text);
    if (!format) fail("is not an output format (" + choices(kOutputFormatNames) + ")");
    (*format_field)(settings) = *format;
  } else if (auto* lines_field = std::get_if<typename F::Lines>(&spec.field)) {
    const auto mode = parse_long_lines(text);
    if (!mode) fail("is not a way to handle long lines (" + choices(kLongLinesNames) + ")");
    (*lines_field)(settings) = *mode;
  } else if (auto* sampling_field = std::get_if<typename F::Sampling>(&spec.field)) {
    const auto sampling = parse_sampling(text);
    if (!sampling) fail("is not a sampling mode (off, full, topk K with K >= 1, topp P with 0 < P <= 1)");
    (*sampling_field)(settings) = *sampling;
  } else if (auto* alignment_field = std::get_if<typename F::Alignment>(&spec.field)) {
    const auto alignment = parse_alignment(text);
    if (!alignment) fail("is not an alignment (hard, soft, or a threshold above 0 and at most 1)");
    (*alignment_field)(settings) = *alignment;
  } else if (auto* precision_field = std::get_if<typename F::Precision>(&spec.field)) {
    const auto precision = ops::parse_precision(text);
    if (!precision) fail("is not a precision (" + choices(ops::kPrecisionNames) + ")");
    (*precision_field)(settings) = *precision;
  } else if (auto* string_field = std::get_if<typename F::String>(&spec.field)) {
    (*string_field)(settings) = text;
  } else if (auto* words_field = std::get_if<typename F::Words>(&spec.field)) {
    std::vector<std::string> words;
    std::istringstream in(text);
    for (std::string word; in >> word;) words.push_back(word);
    (*words_field)(settings) = std::move(words);
  }
}

// The field's current value as text, for the help's defaults.
template <typename S>
std::string show(const OptionSpec<S>& spec, S& settings) {
  using F = Fields<S>;
  if (auto* field = std::get_if<typename F::Int>(&spec.field)) return std::to_string((*field)(settings));
  if (auto* field = std::get_if<typename F::Float>(&spec.field)) return marian_float((*field)(settings));
  if (auto* field = std::get_if<typename F::Bool>(&spec.field)) return (*field)(settings) ? "on" : "off";
  if (auto* field = std::get_if<typename F::String>(&spec.field))
    return (*field)(settings).empty() ? "none" : (*field)(settings);
  if (auto* field = std::get_if<typename F::Lines>(&spec.field))
    return long_lines_name((*field)(settings));
  if (auto* field = std::get_if<typename F::Precision>(&spec.field))
    return ops::precision_name((*field)(settings));
  if (auto* field = std::get_if<typename F::Sampling>(&spec.field))
    return sampling_name((*field)(settings));
  if (auto* field = std::get_if<typename F::Alignment>(&spec.field))
    return alignment_name((*field)(settings));
  if (auto* field = std::get_if<typename F::Words>(&spec.field))
    return (*field)(settings).empty() ? "none" : join((*field)(settings), " ");
  return output_format_name((*std::get_if<typename F::Format>(&spec.field))(settings));
}

template <typename S>
const OptionSpec<S>* find_key(const std::string& key) {
  for (const OptionSpec<S>& spec : Table<S>::rows)
    if (key == spec.key || (spec.marian_key != nullptr && key == spec.marian_key)) return &spec;
  return nullptr;
}

// One setting from a YAML file or the model's own settings.
template <typename ErrorType, typename S>
void apply_entry(const std::string& key, const std::string& value, YamlSource source,
                 const std::string& path, S& settings) {
  const OptionSpec<S>* spec = find_key<S>(key);
  if (source == YamlSource::model) {
    // Marian writes many keys; only those that change translations count here. Its
    // mini-batch / maxi-batch (1 in OPUS-MT releases, meant for servers) never do.
    if (spec == nullptr || !spec->from_model) return;
  } else if (spec == nullptr) {
    const bool translates = find_key<TranslateSettings>(key) != nullptr;
    const bool scores = find_key<ScoreSettings>(key) != nullptr;
    if (translates || scores)  // the other command's option, e.g. beam-size given to score
      throw ErrorType(path + ": '" + key + "' is an option of s2s " +
                      (translates ? "translate" : "score") + ", not of " + Table<S>::command);
    throw ErrorType(path + ": unknown option '" + key + "' (see s2s " + Table<S>::command +
                    " --help)");
  }
  set_value<ErrorType>(*spec, value, path + ": " + key, settings);
}

// Marian's keys of a --config file, in the cases the table does not cover. Returns whether `key`
// was handled here (a table key that applies is not).
template <typename ErrorType, typename S>
class MarianConfigKeys {
 public:
  MarianConfigKeys(const std::string& path, const YAML::Node& root, ConfigFileNotes& notes)
      : path_(path), notes_(notes) {
    const YAML::Node relative = root["relative-paths"];
    relative_paths_ = relative && relative.IsScalar() && relative.Scalar() == "true";
    decoder_config_ = static_cast<bool>(root[kModelKey]);
  }

  bool handle(const std::string& key, const YAML::Node& value, S& settings) {
    if (find_key<S>(key) != nullptr) {
      const bool server_batch = key == "mini-batch" || key == "mini-batch-words" || key == "maxi-batch";
      if (decoder_config_ && server_batch) notes_.ignored.push_back(key);
      return decoder_config_ && server_batch;
    }
    if (key == kModelKey) {
      notes_.model = model_path(value);
    } else if (key == "relative-paths") {
      if (!decoder_config_) notes_.ignored.push_back(key);  // else it placed `models`
    } else if (key == "vocabs") {
      notes_.ignored.push_back(key);  // s2s reads the model folder's
    } else if (key == "max-length-crop" && std::is_same_v<S, TranslateSettings>) {
      if (value.IsScalar() && value.Scalar() == "true") long_lines(settings) = LongLines::truncate;
    } else if (key == "maxi-batch-sort" && std::is_same_v<S, TranslateSettings>) {
      if (!value.IsScalar() || (value.Scalar() != "src" && value.Scalar() != "none"))
        throw ErrorType(path_ + ": maxi-batch-sort: expected src or none");
    } else {
      return marian_key(key);
    }
    return true;
  }

 private:
  static constexpr const char* kModelKey =
      std::is_same_v<S, TranslateSettings> ? "models" : "model";
  static constexpr MarianTool kTool = std::is_same_v<S, TranslateSettings> ? kDecoder : kScorer;

  static LongLines& long_lines(TranslateSettings& s) { return s.translate.long_lines; }
  static LongLines& long_lines(ScoreSettings& s) { return s.long_lines; }

  // One model: a scalar or a list of one, placed as Marian places it.
  std::string model_path(const YAML::Node& value) const {
    std::vector<std::string> paths;
    if (value.IsScalar()) paths.push_back(value.Scalar());
    if (value.IsSequence())
      for (const auto& item : value) paths.push_back(item.Scalar());
    if (paths.size() != 1)
      throw ErrorType(path_ + ": " + kModelKey + ": s2s decodes with one model (" +
                      std::to_string(paths.size()) + " given: ensembles are not supported)");
    const std::filesystem::path model(paths.front());
    if (!relative_paths_ || model.is_absolute()) return model.string();
    return (std::filesystem::path(path_).parent_path() / model).string();
  }

  bool marian_key(const std::string& key) {
    const MarianOption* option = find_marian_option(key, kTool);
    if (option == nullptr) return false;  // unknown: the caller's error
    if (option->use == MarianUse::ignored) {
      notes_.ignored.push_back(key);
      return true;
    }
    if (option->use == MarianUse::refused) throw ErrorType(path_ + ": " + key + ": " + option->what);
    throw ErrorType(path_ + ": " + key + ": give it on the command line (" + option->what + ")");
  }

  const std::string& path_;
  ConfigFileNotes& notes_;
  bool relative_paths_ = false;
  bool decoder_config_ = false;
};

template <typename S>
bool takes_words(const std::string& key) {
  const OptionSpec<S>* spec = find_key<S>(key);
  return spec != nullptr && std::holds_alternative<typename Fields<S>::Words>(spec->field);
}

template <typename ErrorType, typename S>
ConfigFileNotes read_yaml(const std::string& path, YamlSource source, S& settings) {
  YAML::Node root;
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec))
    throw ErrorType(path + ": cannot read options file: is a directory");
  try {
    root = YAML::LoadFile(path);
  } catch (const YAML::BadFile&) {
    // yaml-cpp hides why; the file system says it (missing file, permissions).
    std::ifstream probe(path);
    const std::string why = probe ? "unreadable" : std::strerror(errno);
    throw ErrorType(path + ": cannot read options file: " + why);
  } catch (const YAML::Exception& e) {
    throw ErrorType(path + ": not valid YAML (line " + std::to_string(e.mark.line + 1) + ": " +
                    e.msg + ")");
  }
  ConfigFileNotes notes;
  if (root.IsNull()) return notes;  // an empty file
  if (!root.IsMap()) throw ErrorType(path + ": expected 'key: value' lines");
  MarianConfigKeys<ErrorType, S> marian(path, root, notes);
  for (const auto& entry : root) {
    const std::string key = entry.first.Scalar();
    if (source == YamlSource::config && marian.handle(key, entry.second, settings)) continue;
    // Marian writes a list for some single values (precision: [float32]) and for a file with its
    // arguments (shortlist: [lex.s2t, 100, 100]): its items joined as the command line gives them.
    const bool one_item_list = entry.second.IsSequence() && entry.second.size() == 1 &&
                               entry.second[0].IsScalar();
    if (entry.second.IsSequence() && !one_item_list && takes_words<S>(key)) {
      std::string words;
      for (const auto& item : entry.second) words += (words.empty() ? "" : " ") + item.Scalar();
      apply_entry<ErrorType>(key, words, source, path, settings);
      continue;
    }
    const YAML::Node value = one_item_list ? entry.second[0] : entry.second;
    if (!value.IsScalar() && find_key<S>(key))
      throw ErrorType(path + ": " + key + ": expected a single value");
    if (!value.IsScalar() && source == YamlSource::model) continue;
    apply_entry<ErrorType>(key, value.Scalar(), source, path, settings);
  }
  return notes;
}

}  // namespace

bool applies_from_model(const std::string& key) {
  const auto* spec = find_key<TranslateSettings>(key);
  return spec != nullptr && spec->from_model;
}

ParallelOptions parallel_options(const TranslateSettings& settings) {
  ParallelOptions p;
  p.workers = static_cast<int>(settings.workers);
  p.threads_per_worker = settings.threads > 0 ? static_cast<int>(settings.threads)
                                              : std::max(1, num_threads() / p.workers);
  return p;
}

namespace {

template <typename S>
OptionRow row_of(std::size_t row) {
  S2S_CHECK(row < std::size(Table<S>::rows), Table<S>::command, " option row ", row);
  const OptionSpec<S>& spec = Table<S>::rows[row];
  S defaults;
  OptionRow r{spec.key,  spec.short_flag, spec.marian_key, spec.bare_value, OptionKind::text,
              spec.help, show(spec, defaults)};
  constexpr OptionKind kinds[] = {
      OptionKind::whole_number, OptionKind::number,     OptionKind::on_off,    OptionKind::format,
      OptionKind::text,         OptionKind::long_lines, OptionKind::precision, OptionKind::sampling,
      OptionKind::alignment,    OptionKind::words};  // Field's order
  r.kind = kinds[spec.field.index()];
  return r;
}

template <typename S>
void set_row(std::size_t row, const std::string& text, const std::string& where, S& settings) {
  S2S_CHECK(row < std::size(Table<S>::rows), Table<S>::command, " option row ", row);
  set_value<UsageError>(Table<S>::rows[row], text, where, settings);
}

template <typename S>
void set_key(const std::string& key, const std::string& value, S& settings) {
  const OptionSpec<S>* spec = find_key<S>(key);
  if (spec == nullptr)
    throw UsageError("unknown option '" + key + "' (see s2s " + Table<S>::command + " --help)");
  set_value<UsageError>(*spec, value, key, settings);
}

}  // namespace

namespace {

// The table's rows but those in `no_effect`, key -> value as text.
template <typename S>
std::map<std::string, std::string> options_but(S settings, const std::set<std::string>& no_effect) {
  std::map<std::string, std::string> out;  // `settings` is a copy: show() reads through the
  for (const OptionSpec<S>& spec : Table<S>::rows)  // table's non-const accessors
    if (no_effect.count(spec.key) == 0) out[spec.key] = show(spec, settings);
  return out;
}

}  // namespace

TranslateOptions translator_options(const TranslateSettings& settings) {
  TranslateOptions options = settings.translate;
  if (!settings.no_spm_decode) return options;
  if (options.html)
    throw UsageError("--html puts tags back into detokenized text: not with --no-spm-decode");
  options.protect = false;
  return options;
}

std::map<std::string, std::string> result_options(const TranslateSettings& settings) {
  return options_but(settings, {"threads", "workers", "quiet", "dedup", "dedup-memory"});
}

std::map<std::string, std::string> result_options(const ScoreSettings& settings) {
  return options_but(settings, {"threads", "quiet"});
}

std::size_t option_count(Command command) {
  return command == Command::translate ? std::size(Table<TranslateSettings>::rows)
                                       : std::size(Table<ScoreSettings>::rows);
}

OptionRow option_row(Command command, std::size_t row) {
  return command == Command::translate ? row_of<TranslateSettings>(row) : row_of<ScoreSettings>(row);
}

void set_option(std::size_t row, const std::string& text, const std::string& where,
                TranslateSettings& settings) {
  set_row(row, text, where, settings);
}

void set_option(std::size_t row, const std::string& text, const std::string& where,
                ScoreSettings& settings) {
  set_row(row, text, where, settings);
}

void set_option(const std::string& key, const std::string& value, TranslateSettings& settings) {
  set_key(key, value, settings);
}

void set_option(const std::string& key, const std::string& value, ScoreSettings& settings) {
  set_key(key, value, settings);
}

void apply_model_defaults(const model::ModelInfo& info, TranslateSettings& settings) {
  for (const auto& [key, value] : info.search_defaults)
    apply_entry<ModelError>(key, value, YamlSource::model, info.search_defaults_source, settings);
}

ConfigFileNotes read_yaml_options(const std::string& path, YamlSource source,
                                  TranslateSettings& settings) {
  if (source == YamlSource::model) return read_yaml<ModelError>(path, source, settings);
  return read_yaml<UsageError>(path, source, settings);
}

ConfigFileNotes read_yaml_options(const std::string& path, ScoreSettings& settings) {
  return read_yaml<UsageError>(path, YamlSource::config, settings);
}

}  // namespace s2s::pipeline
