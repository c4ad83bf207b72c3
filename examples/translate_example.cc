// translate_example: the s2s library's API in one program. Per-call options (beam, n-best,
// alignment), results as data, streaming in input order, tokens as the search picks them, and
// scoring. Run with a model folder, or none for the shipped model.
#include <s2s/s2s.h>

#include <iostream>
#include <string>
#include <vector>

int main(int argc, char** argv) {
  try {
    const std::string folder = argc > 1 ? argv[1] : s2s::default_model_folder();
    // Settings that shape loading go here; the rest can change per call.
    const s2s::Engine engine(folder, {{"threads", "2"}});

    s2s::TranslationOptions options;
    options.beam_size = 4;
    options.num_hypotheses = 2;  // the two best of the beam
    options.alignment = "hard";
    const std::vector<std::string> lines = {"The licence is free.", "The file was not found."};
    std::size_t next = 0;
    // Lines come from a source (a file, a socket, ...); results come back in input order.
    engine.translate_iterable(
        [&](std::string& line) {
          if (next == lines.size()) return false;
          line = lines[next++];
          return true;
        },
        [](std::size_t index, s2s::TranslationResult result) {
          for (const s2s::Hypothesis& h : result.hypotheses) {
            std::cout << index << ' ' << h.text << " ||| " << h.score << " |||";
            for (const auto& [source, target] : h.word_alignment)
              std::cout << ' ' << source << '-' << target;
            std::cout << '\n';
          }
        },
        options);

    // Greedy search, each token heard as it is chosen (interactive use).
    s2s::TranslationOptions greedy;
    const s2s::TranslationResult streamed = engine.translate_tokens(
        "The licence is free.",
        [](const s2s::TokenStep& step) {
          std::cout << "token " << step.step << ' ' << step.token << '\n';
          return true;  // false would end the translation here
        },
        greedy);
    std::cout << "greedy: " << streamed.hypotheses.front().text << '\n';

    // How likely a target is, token by token.
    for (const s2s::ScoringResult& s :
         engine.score_batch({{"The licence is free.", "Die Lizenz ist frei."}}))
      std::cout << "score " << s.score << " over " << s.tokens.size() << " tokens\n";
  } catch (const s2s::Error& e) {
    std::cerr << "translate_example: " << e.what() << '\n';
    return 1;
  }
}
