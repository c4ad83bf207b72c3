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
#include <variant>

#include "s2s/core/error.h"
#include "s2s/core/threads.h"

namespace s2s {
namespace {

// A row's target: a function returning the field it sets. The field's type decides how a value
// is parsed (whole number, number, on/off, output format name).
using IntField = dim_t& (*)(TranslateSettings&);
using FloatField = float& (*)(TranslateSettings&);
using BoolField = bool& (*)(TranslateSettings&);
using FormatField = OutputFormat& (*)(TranslateSettings&);
using StringField = std::string& (*)(TranslateSettings&);
using LongLinesField = LongLines& (*)(TranslateSettings&);
using PrecisionField = ops::Precision& (*)(TranslateSettings&);
using Field = std::variant<IntField, FloatField, BoolField, FormatField, StringField,
                           LongLinesField, PrecisionField>;

// clang-format off
#define S2S_FIELD(member) +[](TranslateSettings& s) -> auto& { return s.member; }
// clang-format on

enum class Bound { any, non_negative, at_least_one, positive };

struct OptionSpec {
  const char* key;         // the long flag without "--", and the YAML key
  const char* short_flag;  // e.g. "-b", or ""
  const char* marian_key;  // Marian's YAML name when it differs, or nullptr
  bool from_model;         // also read from the model's decoder.yml (changes translations)
  Bound bound;
  const char* bare_value;  // what the flag means given without a value, or nullptr
  Field field;
  const char* help;
};

// The defaults are not repeated here: they are the struct defaults (SearchOptions holds
// marian-decoder's), and the help text shows them.
const OptionSpec kOptions[] = {
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
    {"target-lang", "", nullptr, false, Bound::any, nullptr, S2S_FIELD(target_lang),
     "Multilingual models: target language code (e.g. deu), put before every line as >>deu<<"},
    {"source-spm", "", nullptr, false, Bound::any, nullptr, S2S_FIELD(source_spm),
     "Source SentencePiece model, for model folders without one (CTranslate2)"},
    {"target-spm", "", nullptr, false, Bound::any, nullptr, S2S_FIELD(target_spm),
     "Target SentencePiece model, for model folders without one (CTranslate2)"},
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
    {"long-lines", "", nullptr, false, Bound::any, nullptr, S2S_FIELD(translate.long_lines),
     "A line over --max-length: split (at sentence ends, then between words; translations "
     "joined with a space), truncate (keep its first tokens) or fail"},
    {"maxi-batch", "", nullptr, false, Bound::at_least_one, nullptr, S2S_FIELD(maxi_batch),
     "Lines read at a time (and sorted by length) when input comes faster than it is translated"},
    {"threads", "", "cpu-threads", false, Bound::non_negative, nullptr, S2S_FIELD(threads),
     "Compute threads (of each worker); 0 uses OMP_NUM_THREADS if set, else all cores "
     "(divided among the workers)"},
    {"workers", "", nullptr, false, Bound::at_least_one, nullptr, S2S_FIELD(workers),
     "Translators running at once on one shared model, each on its own part of the input (for "
     "large inputs; one worker with all threads gives the fastest single sentence)"},
    {"precision", "", nullptr, false, Bound::any, nullptr, S2S_FIELD(precision),
     "What the linear layers compute in: float32, bfloat16 (AVX512_BF16) or int8 (weights "
     "quantized per channel at load, activations per row); the rest stays float32"},
    {"format", "", nullptr, false, Bound::any, nullptr, S2S_FIELD(format),
     "Output: text, nbest (id ||| translation ||| F0= score ||| normalized score) or jsonl"},
    {"no-spm-decode", "", nullptr, false, Bound::any, nullptr, S2S_FIELD(no_spm_decode),
     "Print translations as their target SentencePiece pieces separated by spaces instead of "
     "detokenized text, in every --format (as marian-decoder --no-spm-decode)"},
    {"quiet", "", "quiet-translation", false, Bound::any, nullptr, S2S_FIELD(quiet),
     "No progress line and no warnings on stderr"},
};

#undef S2S_FIELD

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

template <std::size_t N>
std::string choices(const char* const (&names)[N]) {
  std::string s;
  for (const char* name : names) s += (s.empty() ? "" : ", ") + std::string(name);
  return s;
}

// Sets spec's field from text; `where` names the flag or file and key for the message.
template <typename ErrorType>
void set_value(const OptionSpec& spec, const std::string& text, const std::string& where,
               TranslateSettings& settings) {
  auto fail = [&](const std::string& what) { throw ErrorType(where + ": '" + text + "' " + what); };
  auto check_bound = [&](double v) {
    if (spec.bound == Bound::non_negative && v < 0) fail("must be 0 or more");
    if (spec.bound == Bound::at_least_one && v < 1) fail("must be at least 1");
    if (spec.bound == Bound::positive && !(v > 0)) fail("must be more than 0");
  };
  if (auto* field = std::get_if<IntField>(&spec.field)) {
    dim_t v = 0;
    if (!parse_number(text, v)) fail("is not a whole number");
    check_bound(static_cast<double>(v));
    (*field)(settings) = v;
  } else if (auto* field = std::get_if<FloatField>(&spec.field)) {
    float v = 0;
    if (!parse_number(text, v) || !std::isfinite(v)) fail("is not a number");
    check_bound(v);
    (*field)(settings) = v;
  } else if (auto* field = std::get_if<BoolField>(&spec.field)) {
    if (!parse_bool(text, (*field)(settings))) fail("is not true or false");
  } else if (auto* field = std::get_if<FormatField>(&spec.field)) {
    const auto format = parse_output_format(text);
    if (!format) fail("is not an output format (" + choices(kOutputFormatNames) + ")");
    (*field)(settings) = *format;
  } else if (auto* field = std::get_if<LongLinesField>(&spec.field)) {
    const auto mode = parse_long_lines(text);
    if (!mode) fail("is not a way to handle long lines (" + choices(kLongLinesNames) + ")");
    (*field)(settings) = *mode;
  } else if (auto* field = std::get_if<PrecisionField>(&spec.field)) {
    const auto precision = ops::parse_precision(text);
    if (!precision) fail("is not a precision (" + choices(ops::kPrecisionNames) + ")");
    (*field)(settings) = *precision;
  } else if (auto* field = std::get_if<StringField>(&spec.field)) {
    (*field)(settings) = text;
  }
}

// The field's current value as text, for the help's defaults.
std::string show(const OptionSpec& spec, TranslateSettings& settings) {
  if (auto* field = std::get_if<IntField>(&spec.field)) return std::to_string((*field)(settings));
  if (auto* field = std::get_if<FloatField>(&spec.field)) return marian_float((*field)(settings));
  if (auto* field = std::get_if<BoolField>(&spec.field)) return (*field)(settings) ? "on" : "off";
  if (auto* field = std::get_if<StringField>(&spec.field))
    return (*field)(settings).empty() ? "none" : (*field)(settings);
  if (auto* field = std::get_if<LongLinesField>(&spec.field))
    return long_lines_name((*field)(settings));
  if (auto* field = std::get_if<PrecisionField>(&spec.field))
    return ops::precision_name((*field)(settings));
  return output_format_name((*std::get_if<FormatField>(&spec.field))(settings));
}

const OptionSpec* find_key(const std::string& key) {
  for (const OptionSpec& spec : kOptions)
    if (key == spec.key || (spec.marian_key != nullptr && key == spec.marian_key)) return &spec;
  return nullptr;
}

// One setting from a YAML file or the model's own settings.
template <typename ErrorType>
void apply_entry(const std::string& key, const std::string& value, YamlSource source,
                 const std::string& path, TranslateSettings& settings) {
  const OptionSpec* spec = find_key(key);
  if (source == YamlSource::model) {
    // Marian writes many keys; only those that change translations count here. Its
    // mini-batch / maxi-batch (1 in OPUS-MT releases, meant for servers) never do.
    if (spec == nullptr || !spec->from_model) return;
  } else if (spec == nullptr) {
    throw ErrorType(path + ": unknown option '" + key + "' (see s2s translate --help)");
  }
  set_value<ErrorType>(*spec, value, path + ": " + key, settings);
}

template <typename ErrorType>
void read_yaml(const std::string& path, YamlSource source, TranslateSettings& settings) {
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
  if (root.IsNull()) return;  // an empty file
  if (!root.IsMap()) throw ErrorType(path + ": expected 'key: value' lines");
  for (const auto& entry : root) {
    const std::string key = entry.first.Scalar();
    if (!entry.second.IsScalar() && (source == YamlSource::config || find_key(key)))
      throw ErrorType(path + ": " + key + ": expected a single value");
    apply_entry<ErrorType>(key, entry.second.Scalar(), source, path, settings);
  }
}

}  // namespace

bool applies_from_model(const std::string& key) {
  const OptionSpec* spec = find_key(key);
  return spec != nullptr && spec->from_model;
}

ParallelOptions parallel_options(const TranslateSettings& settings) {
  ParallelOptions p;
  p.workers = static_cast<int>(settings.workers);
  p.threads_per_worker = settings.threads > 0 ? static_cast<int>(settings.threads)
                                              : std::max(1, num_threads() / p.workers);
  return p;
}

std::size_t option_count() { return std::size(kOptions); }

OptionRow option_row(std::size_t row) {
  S2S_CHECK(row < std::size(kOptions), "option row ", row);
  const OptionSpec& spec = kOptions[row];
  TranslateSettings defaults;
  OptionRow r{spec.key,  spec.short_flag, spec.marian_key, spec.bare_value, OptionKind::text,
              spec.help, show(spec, defaults)};
  if (std::holds_alternative<IntField>(spec.field)) r.kind = OptionKind::whole_number;
  if (std::holds_alternative<FloatField>(spec.field)) r.kind = OptionKind::number;
  if (std::holds_alternative<BoolField>(spec.field)) r.kind = OptionKind::on_off;
  if (std::holds_alternative<FormatField>(spec.field)) r.kind = OptionKind::format;
  if (std::holds_alternative<LongLinesField>(spec.field)) r.kind = OptionKind::long_lines;
  if (std::holds_alternative<PrecisionField>(spec.field)) r.kind = OptionKind::precision;
  return r;
}

void set_option(std::size_t row, const std::string& text, const std::string& where,
                TranslateSettings& settings) {
  S2S_CHECK(row < std::size(kOptions), "option row ", row);
  set_value<UsageError>(kOptions[row], text, where, settings);
}

void set_option(const std::string& key, const std::string& value, TranslateSettings& settings) {
  const OptionSpec* spec = find_key(key);
  if (spec == nullptr) throw UsageError("unknown option '" + key + "' (see s2s translate --help)");
  set_value<UsageError>(*spec, value, key, settings);
}

void apply_model_defaults(const ModelInfo& info, TranslateSettings& settings) {
  for (const auto& [key, value] : info.search_defaults)
    apply_entry<ModelError>(key, value, YamlSource::model, info.search_defaults_source, settings);
}

void read_yaml_options(const std::string& path, YamlSource source, TranslateSettings& settings) {
  if (source == YamlSource::model)
    read_yaml<ModelError>(path, source, settings);
  else
    read_yaml<UsageError>(path, source, settings);
}

}  // namespace s2s
