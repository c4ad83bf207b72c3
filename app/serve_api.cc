#include "serve_api.h"

#include <algorithm>
#include <chrono>
#include <map>
#include <memory>

#include "serve_glossary.h"

namespace s2s::app {
namespace {

using nlohmann::json;

std::string ascii_lower(std::string text) {
  for (char& c : text)
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  return text;
}

std::size_t code_points(const std::string& text) {
  std::size_t n = 0;
  for (unsigned char c : text) n += (c & 0xC0) != 0x80;
  return n;
}

// A language is supported when a served model translates from or into it (LibreTranslate's
// installed languages); a pair of supported languages without a model is "not available".
bool language_served(const ServeState& state, const std::string& code) {
  for (const ServedModel& model : *state.models)
    if (model.source == code || model.target == code) return true;
  return false;
}

std::string language_label(const std::string& code);

const ServedModel& model_for(const ServeState& state, const std::string& source,
                             const std::string& target) {
  if (source == "auto")
    throw HttpError(400, "Invalid request: language detection (source auto) is not supported "
                         "by this server; give the source language");
  for (const ServedModel& model : *state.models)
    if (model.source == source && model.target == target) return model;
  if (!language_served(state, source)) throw HttpError(400, source + " is not supported");
  if (!language_served(state, target)) throw HttpError(400, target + " is not supported");
  throw HttpError(400, language_label(target) + " is not available as a target language from " +
                           language_label(source));
}

// A multilingual engine's pair goes with each call (its pairs share one engine), and its
// requests batch only with the same pair's.
void add_languages(const ServedModel& model, TranslationOptions& options) {
  if (model.source_lang.empty()) return;
  options.settings.push_back({"source-lang", model.source_lang});
  options.settings.push_back({"target-lang", model.target_lang});
}

std::string pair_group(const ServedModel& model) { return model.source + "-" + model.target + ":"; }

std::string required_string(const json& fields, const char* name) {
  if (!fields.contains(name) || fields[name].is_null())
    throw HttpError(400, std::string("Invalid request: missing ") + name + " parameter");
  if (!fields[name].is_string())
    throw HttpError(400, std::string("Invalid request: ") + name + " must be a string");
  return fields[name].get<std::string>();
}

// The request's lines: a string or a list of strings, within the character limit.
std::vector<std::string> text_lines(const ServeState& state, const json& q, const char* name) {
  std::vector<std::string> lines;
  if (q.is_string()) {
    lines.push_back(q.get<std::string>());
  } else if (q.is_array()) {
    for (const json& item : q) {
      if (!item.is_string())
        throw HttpError(400, std::string("Invalid request: ") + name + " must be a string or a list of strings");
      lines.push_back(item.get<std::string>());
    }
  } else {
    throw HttpError(400, std::string("Invalid request: ") + name + " must be a string or a list of strings");
  }
  std::size_t chars = 0;
  for (const std::string& line : lines) chars += code_points(line);
  if (chars > state.config->max_chars)
    throw HttpError(400, "Invalid request: request (" + std::to_string(chars) +
                             ") exceeds text limit (" + std::to_string(state.config->max_chars) + ")");
  return lines;
}

// The lines through the shared queue: 503 when it is full, 500 on the engine's error or time-out.
std::vector<TranslationResult> translate_queued(const ServeState& state, const Engine& engine,
                                                std::vector<std::string> lines,
                                                const TranslationOptions& options,
                                                const std::string& group) {
  auto ticket = std::make_shared<Ticket>();
  ticket->engine = &engine;
  ticket->options = options;
  ticket->group = group;
  ticket->lines = std::move(lines);
  if (ticket->lines.size() > state.config->queue.max_queued)
    throw HttpError(413, "Invalid request: " + std::to_string(ticket->lines.size()) +
                             " texts exceed the server's queue of " +
                             std::to_string(state.config->queue.max_queued));
  if (!state.queue->submit(ticket)) throw HttpError(503, "Server busy: translation queue is full");
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(state.config->request_timeout);
  // Looks at the connection every 50 ms while waiting: a client gone cancels its texts.
  while (!state.queue->wait(*ticket, std::min(deadline, std::chrono::steady_clock::now() + std::chrono::milliseconds(50)))) {
    if (client_disconnected()) {
      state.queue->cancel(*ticket);
      throw HttpError(499, "Client closed the connection");
    }
    if (std::chrono::steady_clock::now() >= deadline)
      throw HttpError(500, "Translation took longer than " + std::to_string(state.config->request_timeout) + " s");
  }
  if (ticket->error) std::rethrow_exception(ticket->error);
  return std::move(ticket->results);
}

// LibreTranslate's reading: a number (or a string of one), negative as 0, at most the limit.
int alternatives_asked(const ServeState& state, const json& fields) {
  if (!fields.contains("alternatives") || fields["alternatives"].is_null()) return 0;
  const json& value = fields["alternatives"];
  long n = 0;
  if (value.is_number()) {
    n = static_cast<long>(value.get<double>());
  } else {
    const std::string text = value.is_string() ? value.get<std::string>() : "";
    std::size_t used = 0;
    try { n = std::stol(text, &used); } catch (...) { used = 0; }
    if (used == 0 || text.find_first_not_of(" \t", used) != std::string::npos)
      throw HttpError(400, "Invalid request: alternatives parameter is not a number");
  }
  const int limit = state.config->alternatives_limit;
  if (n > limit)
    throw HttpError(400, "Invalid request: alternatives parameter must be <= " + std::to_string(limit));
  return static_cast<int>(std::max(0L, n));
}

const char* language_name(const std::string& code) {
  static const std::map<std::string, const char*> names = {
      {"ar", "Arabic"}, {"cs", "Czech"}, {"da", "Danish"}, {"de", "German"}, {"el", "Greek"},
      {"en", "English"}, {"es", "Spanish"}, {"fi", "Finnish"}, {"fr", "French"},
      {"hu", "Hungarian"}, {"it", "Italian"}, {"ja", "Japanese"}, {"ko", "Korean"},
      {"nl", "Dutch"}, {"pl", "Polish"}, {"pt", "Portuguese"}, {"ro", "Romanian"},
      {"ru", "Russian"}, {"sv", "Swedish"}, {"tr", "Turkish"}, {"uk", "Ukrainian"},
      {"zh", "Chinese"}};
  const auto found = names.find(code);
  return found == names.end() ? nullptr : found->second;
}

// "German (de)", or the code alone for a language without a name here.
std::string language_label(const std::string& code) {
  const char* name = language_name(code);
  return name ? std::string(name) + " (" + code + ")" : code;
}

template <class T>
void take(const json& body, const char* name, std::optional<T>& field) {
  if (!body.contains(name)) return;
  try {
    field = body[name].get<T>();
  } catch (const json::exception&) {
    throw HttpError(400, std::string("Invalid request: bad value for ") + name);
  }
}

// The native request's options (the names of TranslationOptions). Settings by name are not
// taken from clients: some of them name files on the server (glossary).
TranslationOptions native_options(const json& body, std::size_t lines) {
  TranslationOptions options;
  take(body, "beam_size", options.beam_size);
  take(body, "num_hypotheses", options.num_hypotheses);
  take(body, "length_penalty", options.length_penalty);
  take(body, "word_penalty", options.word_penalty);
  take(body, "max_input_length", options.max_input_length);
  take(body, "max_decoding_length", options.max_decoding_length);
  take(body, "max_length_factor", options.max_length_factor);
  take(body, "min_decoding_length", options.min_decoding_length);
  take(body, "repetition_penalty", options.repetition_penalty);
  take(body, "no_repeat_ngram_size", options.no_repeat_ngram_size);
  take(body, "allow_unk", options.allow_unk);
  take(body, "sampling_topk", options.sampling_topk);
  take(body, "sampling_topp", options.sampling_topp);
  take(body, "sampling_temperature", options.sampling_temperature);
  take(body, "seed", options.seed);
  take(body, "alignment", options.alignment);
  take(body, "protect", options.protect);
  take(body, "html", options.html);
  if (body.contains("target_prefix")) {
    if (!body["target_prefix"].is_array() || body["target_prefix"].size() != lines)
      throw HttpError(400, "Invalid request: target_prefix must be a list of one string per text");
    for (const json& prefix : body["target_prefix"]) {
      if (!prefix.is_string()) throw HttpError(400, "Invalid request: target_prefix must hold strings");
      options.target_prefix.push_back(prefix.get<std::string>());
    }
  }
  return options;
}

json spans_json(const std::vector<std::pair<Span, Span>>& spans) {
  json out = json::array();
  for (const auto& [source, target] : spans)
    out.push_back({{source.begin, source.end}, {target.begin, target.end}});
  return out;
}

json hypothesis_json(const Hypothesis& h) {
  json out = {{"text", h.text}, {"score", h.score}, {"normalized_score", h.normalized_score},
              {"tokens", h.tokens}, {"token_scores", h.token_scores}};
  if (!h.alignment.empty() || !h.soft_alignment.empty()) {
    out["alignment"] = h.alignment;
    out["word_alignment"] = h.word_alignment;
    out["word_spans"] = spans_json(h.word_spans);
    out["alignment_text"] = h.alignment_text;
    if (!h.soft_alignment.empty()) out["soft_alignment"] = h.soft_alignment;
  }
  return out;
}

json notes_json(const LineNotes& notes) {
  return {{"sentences", notes.sentences},           {"invalid_utf8", notes.invalid_utf8},
          {"split_for_length", notes.split_for_length}, {"truncated", notes.truncated},
          {"short_units", notes.short_units},       {"glossary_unmet", notes.glossary_unmet},
          {"protected_spans", notes.protected_spans}, {"unspellable", notes.unspellable},
          {"markup_problem", notes.markup_problem}};
}

// LibreTranslate's alternatives: the other hypotheses, without repeats of the translation or of
// each other (app.py filter_unique).
json other_texts(const TranslationResult& result) {
  json rest = json::array();
  for (std::size_t i = 1; i < result.hypotheses.size(); ++i) {
    const std::string& text = result.hypotheses[i].text;
    if (text != result.hypotheses.front().text && std::find(rest.begin(), rest.end(), text) == rest.end())
      rest.push_back(text);
  }
  return rest;
}

// Before any other check, as LibreTranslate's access_check: a key not listed is 403, no key at
// all is LibreTranslate's answer when its server requires one.
void check_api_key(const ServeState& state, const json& fields) {
  if (state.api_keys.empty()) return;
  const bool given = fields.contains("api_key") && fields["api_key"].is_string() &&
                     !fields["api_key"].get<std::string>().empty();
  if (!given) throw HttpError(400, "Please contact the server operator to get an API key");
  if (!state.api_keys.count(fields["api_key"].get<std::string>())) throw HttpError(403, "Invalid API key");
}

bool is_empty(const json& value) {
  return value.is_null() || (value.is_string() && value.get<std::string>().empty()) ||
         (value.is_array() && value.empty()) || (value.is_boolean() && !value.get<bool>());
}

// source or target: missing when absent or empty (app.py: `if not source_lang`), lower case as
// app.py's iso2model.
std::string language_field(const json& fields, const char* name) {
  if (!fields.contains(name) || is_empty(fields[name]))
    throw HttpError(400, std::string("Invalid request: missing ") + name + " parameter");
  if (!fields[name].is_string()) throw HttpError(400, std::string("Invalid request: ") + name + " must be a string");
  return ascii_lower(fields[name].get<std::string>());
}

}  // namespace

// The checks in LibreTranslate's order (app.py translate()), with its messages.
json libretranslate(const ServeState& state, const json& fields) {
  check_api_key(state, fields);
  if (!fields.contains("q") || is_empty(fields["q"])) throw HttpError(400, "Invalid request: missing q parameter");
  const std::string source = language_field(fields, "source");
  const std::string target = language_field(fields, "target");
  const int alternatives = alternatives_asked(state, fields);
  std::vector<std::string> lines = text_lines(state, fields["q"], "q");
  if (source != "auto" && !language_served(state, source)) throw HttpError(400, source + " is not supported");
  if (!language_served(state, target)) throw HttpError(400, target + " is not supported");
  std::string format = "text";
  if (fields.contains("format") && !is_empty(fields["format"])) format = required_string(fields, "format");
  if (format != "text" && format != "html") throw HttpError(400, format + " format is not supported");
  const ServedModel& model = model_for(state, source, target);
  const bool batch = fields["q"].is_array();
  TranslationOptions options;
  add_languages(model, options);
  options.html = format == "html";
  if (alternatives > 0) {
    options.num_hypotheses = alternatives + 1;
    options.beam_size = alternatives + 1;
  }
  const auto results =
      translate_queued(state, *model.engine, std::move(lines), options,
                       pair_group(model) + "lt:" + format + ":" + std::to_string(alternatives));
  json texts = json::array(), others = json::array();
  for (const TranslationResult& result : results) {
    texts.push_back(result.hypotheses.empty() ? "" : result.hypotheses.front().text);
    others.push_back(other_texts(result));
  }
  json answer = {{"translatedText", batch ? texts : texts[0]}};
  if (alternatives > 0) answer["alternatives"] = batch ? others : others[0];
  return answer;
}

json languages(const ServeState& state) {
  // Every language a model translates from or into (LibreTranslate lists its installed ones).
  std::map<std::string, std::vector<std::string>> targets;
  for (const ServedModel& model : *state.models) {
    targets[model.source].push_back(model.target);
    targets[model.target];
  }
  json out = json::array();
  for (const auto& [code, to] : targets) {
    const char* name = language_name(code);
    out.push_back({{"code", code}, {"name", name ? name : code.c_str()}, {"targets", to}});
  }
  return out;
}

json native_translate(const ServeState& state, const json& body) {
  if (!body.is_object() || !body.contains("text"))
    throw HttpError(400, "Invalid request: missing text parameter");
  const std::vector<std::string> lines = text_lines(state, body["text"], "text");
  const std::string source = body.contains("source") ? required_string(body, "source") : state.models->front().source;
  const std::string target = body.contains("target") ? required_string(body, "target") : state.models->front().target;
  const ServedModel& model = model_for(state, source, target);
  TranslationOptions options = native_options(body, lines.size());
  add_languages(model, options);
  const RequestGlossary glossary(body);  // its file lives until the translation is done
  if (!glossary.path().empty()) options.settings.push_back({"glossary", glossary.path()});
  json group = body;
  group.erase("text");
  group.erase("target_prefix");
  const auto results = translate_queued(state, *model.engine, lines, options,
                                        pair_group(model) + "v1:" + group.dump());
  json out = json::array();
  for (const TranslationResult& result : results) {
    json hypotheses = json::array();
    for (const Hypothesis& h : result.hypotheses) hypotheses.push_back(hypothesis_json(h));
    out.push_back({{"hypotheses", hypotheses}, {"notes", notes_json(result.notes)}});
  }
  return {{"results", out}};
}

json native_score(const ServeState& state, const json& body) {
  if (!body.is_object() || !body.contains("source") || !body.contains("target"))
    throw HttpError(400, "Invalid request: missing source or target parameter (lists of texts)");
  const auto sources = text_lines(state, body["source"], "source");
  const auto targets = text_lines(state, body["target"], "target");
  if (sources.size() != targets.size())
    throw HttpError(400, "Invalid request: source and target must have as many texts");
  const std::string from = body.contains("source_lang") ? required_string(body, "source_lang") : state.models->front().source;
  const std::string to = body.contains("target_lang") ? required_string(body, "target_lang") : state.models->front().target;
  const ServedModel& model = model_for(state, from, to);
  std::vector<std::pair<std::string, std::string>> pairs;
  for (std::size_t i = 0; i < sources.size(); ++i) pairs.emplace_back(sources[i], targets[i]);
  ScoringOptions options;
  options.source_lang = model.source_lang;
  options.target_lang = model.target_lang;
  take(body, "length_penalty", options.length_penalty);
  take(body, "alignment", options.alignment);
  json out = json::array();
  for (const ScoringResult& r : model.engine->score_batch(pairs, options)) {
    json one = {{"score", r.score}, {"normalized_score", r.normalized_score}, {"tokens", r.tokens},
                {"token_scores", r.token_scores}};
    if (!r.alignment.empty()) {
      one["alignment"] = r.alignment;
      one["word_alignment"] = r.word_alignment;
      one["word_spans"] = spans_json(r.word_spans);
    }
    out.push_back(one);
  }
  return {{"results", out}};
}

}  // namespace s2s::app
