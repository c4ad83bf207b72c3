// Measuring driver for docs/real-text.md: translates lines with the shipped model as
// `s2s translate` does by default for models/en-de (beam 4, normalize 1: its decoder.yml), with
// protection off (plain: `--protect off`), on (the default) or with `--html`, through the same
// Translator and output code as the command.
//
//   real_text_driver MODEL plain|protect|html < lines > translations
//   real_text_driver MODEL check|check-html|check-plain < suite.tsv   # kind<TAB>source<TAB>...:
//       every span (and tag) back exactly once? (check-plain: without protection, for comparison)
//
// `check` prints, per line whose spans did not all come back exactly once, the source and the
// translation, then "kept K of N spans (M placed by the alignment)", and exits 1 unless K == N.
#include <iostream>
#include <string>
#include <vector>

#include "s2s/formats/detect.h"
#include "s2s/pipeline/output.h"
#include "s2s/pipeline/translator.h"
#include "s2s/text/markup.h"
#include "s2s/text/protect.h"

namespace {

using namespace s2s;

struct Result {
  std::string text;
  std::size_t placed_by_alignment = 0;
};

enum class Mode { plain, protect, html };

std::vector<Result> translate(const std::shared_ptr<const model::Model>& model,
                              const std::vector<std::string>& lines, Mode mode) {
  pipeline::TranslateOptions options;
  options.search.beam_size = 4;
  options.search.normalize = 1.0f;
  options.protect = mode != Mode::plain;
  options.html = mode == Mode::html;
  const pipeline::Translator translator(model, options);
  const pipeline::OutputFormatter formatter(model->codec(), pipeline::OutputFormat::text, false);
  std::vector<pipeline::InputNotes> notes;
  const auto translations = translator.translate(lines, 1, &notes);
  std::vector<Result> results;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    if (!notes[i].markup_problem.empty()) std::cerr << "line " << i + 1 << ": " << notes[i].markup_problem << "\n";
    results.push_back({translations[i].hypotheses.empty() ? std::string()
                                                           : formatter.hypothesis_text(translations[i], 0),
                       notes[i].spans_placed});
  }
  return results;
}

std::size_t count(const std::string& text, const std::string& part) {
  std::size_t n = 0;
  for (auto at = text.find(part); at != std::string::npos; at = text.find(part, at + part.size())) ++n;
  return n;
}

// Every pattern (and with html every tag) of each source back exactly once; html output
// well-formed.
int check(const std::shared_ptr<const model::Model>& model, const std::vector<std::string>& rows,
          Mode mode) {
  const bool html = mode == Mode::html;
  std::vector<std::string> sources;
  std::vector<bool> markup_rows;  // kind "html": count the tags too, whatever the mode
  for (const std::string& row : rows) {
    const auto tab = row.find('\t');
    sources.push_back(row.substr(tab + 1, row.find('\t', tab + 1) - tab - 1));
    markup_rows.push_back(row.compare(0, tab, "html") == 0);
  }
  const auto results = translate(model, sources, mode);
  std::size_t spans = 0, kept = 0, placed = 0, ill_formed = 0;
  for (std::size_t i = 0; i < sources.size(); ++i) {
    bool all = true;
    const std::string escaped_source = text::escape_html(sources[i]);
    std::vector<std::string> parts;
    const text::MarkupLine markup = text::parse_markup(sources[i]);
    const std::string& plain = markup_rows[i] ? markup.text : sources[i];
    const text::ProtectedText expected =
        markup_rows[i] ? text::protect_markup(markup, {}) : text::protect(plain, {});
    for (const text::ProtectedSpan& span : expected.spans) parts.push_back(span.text);
    if (markup_rows[i])
      for (const text::MarkupElement& e : markup.elements) parts.insert(parts.end(), {e.open, e.close});
    if (html) {
      if (!text::parse_markup(results[i].text).problem.empty()) {
        all = false;
        ++ill_formed;
      }
    }
    for (std::string part : parts) {
      if (part.empty()) continue;
      if (markup_rows[i] && part[0] != '<') part = text::escape_html(part);
      const bool once = count(results[i].text, part) == count(sources[i], part) ||
                        (html && count(results[i].text, part) == count(escaped_source, part));
      ++spans;
      kept += once;
      all = all && once;
    }
    placed += results[i].placed_by_alignment;
    if (!all) std::cout << sources[i] << "\n  -> " << results[i].text << "\n";
  }
  std::cout << "kept " << kept << " of " << spans << " spans (" << placed
            << " placed by the alignment)";
  if (html) std::cout << ", " << ill_formed << " ill-formed outputs";
  std::cout << "\n";
  return kept == spans && ill_formed == 0 ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::cerr << "usage: real_text_driver MODEL plain|protect|html|check|check-html|check-plain < input\n";
    return 2;
  }
  const std::string mode = argv[2];
  const std::shared_ptr<const model::Model> model = formats::load_model(argv[1]);
  std::vector<std::string> lines;
  for (std::string line; std::getline(std::cin, line);) lines.push_back(line);
  const bool checking = mode.rfind("check", 0) == 0;
  const std::string name = checking ? mode.substr(std::min(mode.size(), std::size_t{6})) : mode;
  const Mode m = name == "html" ? Mode::html : name == "plain" ? Mode::plain : Mode::protect;
  if (checking) return check(model, lines, m);
  for (const Result& r : translate(model, lines, m)) std::cout << r.text << "\n";
  return 0;
}
