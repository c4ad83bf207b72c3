// The settings of `translate` and `score`: a table per command of (key, help, target field) that
// feeds the CLI's flags (app/options.h), --config YAML files, the model's own settings and the
// library's string options (s2s.h), so that a config key cannot drift from its flag
// (docs/architecture.md, "Where each job lives").
//
// Precedence, lowest first: the defaults of the structs below (SearchOptions holds
// marian-decoder's), for translate the model's decoder.yml (only keys that change translations;
// marian-scorer reads none), a --config file, then options given one by one (flags).
#pragma once

#include <cstddef>
#include <map>
#include <string>
#include <vector>

#include "s2s/model/model.h"
#include "s2s/ops/precision.h"
#include "s2s/pipeline/output.h"
#include "s2s/pipeline/scorer.h"
#include "s2s/pipeline/translator.h"

namespace s2s::pipeline {

// Everything `s2s translate` can be told through the table.
struct TranslateSettings {
  TranslateOptions translate;  // search options and batch sizes, for the Translator
  dim_t maxi_batch = 1000;     // lines read per window when input arrives faster than it is used
  dim_t threads = 0;           // 0: OMP_NUM_THREADS if set, else all cores (divided by workers)
  dim_t workers = 1;           // translators running at once on one shared model
  bool dedup = false;          // translate each distinct line once (pipeline/dedup.h)
  float dedup_memory = 256;    // MB the finished lines of --dedup may take
  ops::Precision precision = ops::Precision::f32;  // what the linear layers compute in
  OutputFormat format = OutputFormat::text;
  bool no_spm_decode = false;  // print target pieces, not detokenized text (Marian's flag)
  bool word_scores = false;    // Marian's " ||| WordScores= ..." after each translation
  bool tsv = false;            // tab-separated input: its first field is translated
  dim_t tsv_fields = 1;        // with tsv: the most fields a line may have
  bool quiet = false;
  std::string target_lang;  // multilingual models: the >>xxx<< label put before every line
  std::string source_lang;  // NLLB-200 / M2M-100: the source-language code (text/languages.h)
  std::string source_spm;   // SentencePiece models for folders without them (CTranslate2)
  std::string target_spm;
  // Marian's --shortlist FILE [first best threshold] (pipeline/shortlist_setting.h); empty: the
  // model folder's own shortlist if it has one; "off": none.
  std::vector<std::string> shortlist;
};

// Everything `s2s score` can be told through its table.
struct ScoreSettings {
  ScoreOptions score;          // normalize and batch sizes, for the Scorer
  dim_t max_length = 1000;     // most tokens of a side (marian-scorer's default)
  dim_t maxi_batch = 4096;     // pairs read per window (sorted by length, batched)
  LongLines long_lines = LongLines::split;  // split and truncate both truncate a side
  dim_t threads = 0;
  ops::Precision precision = ops::Precision::f32;
  OutputFormat format = OutputFormat::text;  // text or jsonl
  bool word_scores = false;
  bool skip_bad = false;      // a line that cannot be read gets an empty record, not an error
  bool quiet = false;
  std::string summary;        // a corpus figure instead of per-pair scores, or ""
  std::string n_best_feature = "Fscore";  // marian-scorer's default feature name
  std::string source_lang;    // NLLB-200 / M2M-100 (pipeline/languages.h)
  std::string target_lang;
  std::string source_spm;
  std::string target_spm;
};

enum class Command { translate, score };

// What a row's value is, for a CLI's type names and choices.
enum class OptionKind {
  whole_number,
  number,
  on_off,
  format,
  text,
  long_lines,
  precision,
  sampling,
  alignment,
  words  // a file and its arguments, several words on a command line (a list in YAML)
};

struct OptionRow {
  const char* key;         // the long flag without "--", and the YAML key
  const char* short_flag;  // e.g. "-b", or ""
  const char* marian_key;  // Marian's name for it when it differs (a flag and a key), or nullptr
  const char* bare_value;  // what the flag means given without a value, or nullptr
  OptionKind kind;
  const char* help;
  std::string default_value;  // the built-in default, as text
};

// The Translator's options: settings.translate, with no protection when translations are printed
// as pieces (--no-spm-decode: the model's own pieces, as marian-decoder prints them; masked spans
// could not be put back into them). UsageError for --html with --no-spm-decode.
TranslateOptions translator_options(const TranslateSettings& settings);

// How translations are printed: detokenized, or as pieces with --no-spm-decode.
inline TargetText target_text(const TranslateSettings& settings) {
  return settings.no_spm_decode ? TargetText::pieces : TargetText::decoded;
}

// --workers N translators, each with --threads compute threads; --threads 0 shares the cores
// (OMP_NUM_THREADS when set) among the workers.
ParallelOptions parallel_options(const TranslateSettings& settings);

// Every option that can change what a run writes, key -> value as text (the table's rows but
// threads, workers, quiet, dedup, dedup-memory; score's but threads, quiet): what a resumed run
// must share with the run it continues (journal.h). File names are values here; the caller adds
// the files' fingerprints.
std::map<std::string, std::string> result_options(const TranslateSettings& settings);
std::map<std::string, std::string> result_options(const ScoreSettings& settings);

std::size_t option_count(Command command);
OptionRow option_row(Command command, std::size_t row);

// Sets row `row` from text; UsageError "<where>: '<text>' <why>" when the value is bad.
void set_option(std::size_t row, const std::string& text, const std::string& where,
                TranslateSettings& settings);
void set_option(std::size_t row, const std::string& text, const std::string& where,
                ScoreSettings& settings);
// The same by key (s2s's name or Marian's); UsageError for an unknown key.
void set_option(const std::string& key, const std::string& value, TranslateSettings& settings);
void set_option(const std::string& key, const std::string& value, ScoreSettings& settings);

enum class YamlSource {
  model,   // the model's own settings (ModelInfo::search_defaults, e.g. its decoder.yml): only
           // keys that change results; other keys ignored (Marian writes many); a bad value is a
           // ModelError naming the file
  config,  // --config FILE: every key must be in the table; errors are UsageErrors
};

// Whether a key of the model's own settings is applied (it changes translations: beam-size,
// normalize, ...); the others (Marian's mini-batch, relative-paths, ...) are ignored.
bool applies_from_model(const std::string& key);

// Applies the model's own settings (decoder.yml, HF generation config, CTranslate2 defaults).
void apply_model_defaults(const model::ModelInfo& info, TranslateSettings& settings);

// What a --config file holds besides the table's keys. It may be a Marian config (a model's
// decoder.yml): Marian's keys (marian_options.h) that s2s ignores are listed in `ignored`, for
// one note; those it refuses are UsageErrors saying why; keys neither s2s nor Marian has are
// UsageErrors. A Marian decoder config, one that names `models`, is read as the model folder's
// decoder.yml is for its batch sizes (mini-batch, mini-batch-words, maxi-batch: a Marian
// server's; ignored with the note).
struct ConfigFileNotes {
  std::vector<std::string> ignored;  // keys, in file order
  // The model its `models` (translate) or `model` (score) names: one path, relative to the file's
  // folder with `relative-paths: true` (as Marian reads it), else as written; "" when none.
  std::string model;
};

// Reads the table's keys from a YAML mapping file into `settings`.
ConfigFileNotes read_yaml_options(const std::string& path, YamlSource source,
                                  TranslateSettings& settings);
// A --config file for score (errors are UsageErrors).
ConfigFileNotes read_yaml_options(const std::string& path, ScoreSettings& settings);

}  // namespace s2s::pipeline
