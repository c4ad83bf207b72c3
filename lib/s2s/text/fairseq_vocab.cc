#include "s2s/text/fairseq_vocab.h"

#include "s2s/core/error.h"

namespace s2s::text {
namespace {

// Appends `tokens` after the last id, then madeupwords up to model_size.
Vocabulary finish(VocabEntries entries, const std::vector<std::string>& tokens, dim_t model_size,
                  const std::string& source, const std::string& config_path) {
  int next = static_cast<int>(entries.size());
  for (const std::string& token : tokens) entries.emplace_back(token, next++);
  const int words = next;
  if (words > model_size)
    throw ModelError(config_path + ": vocab_size " + std::to_string(model_size) +
                     " is smaller than the tokenizer's " + std::to_string(words) + " tokens (" +
                     source + " and " + std::to_string(tokens.size()) + " language tokens)");
  for (int i = 0; next < model_size; ++i) entries.emplace_back("madeupword" + std::to_string(i), next++);
  return Vocabulary::from_entries(entries, source, VocabFormat::text);
}

}  // namespace

Vocabulary nllb_vocabulary(const SentencePiece& spm, const std::vector<std::string>& language_tokens,
                           dim_t model_size, const std::string& config_path) {
  // tokenization_nllb.py: fairseq_tokens_to_ids / fairseq_offset = 1; SentencePiece's own
  // <unk> <s> </s> (ids 0-2) are the fairseq specials instead.
  VocabEntries entries = {{"<s>", 0}, {"<pad>", 1}, {"</s>", 2}, {"<unk>", 3}};
  for (int k = 3; k < spm.piece_count(); ++k) entries.emplace_back(spm.piece(k), k + 1);
  std::vector<std::string> tokens = language_tokens;
  tokens.push_back("<mask>");
  return finish(std::move(entries), tokens, model_size, spm.path(), config_path);
}

Vocabulary m2m100_vocabulary(const std::string& vocab_json,
                             const std::vector<std::string>& language_tokens, dim_t model_size,
                             const std::string& config_path) {
  const Vocabulary dict = Vocabulary::load(vocab_json);
  VocabEntries entries;
  for (int id = 0; id < dict.size(); ++id) {
    if (dict.piece(id).empty())
      throw ModelError(vocab_json + ": no token has id " + std::to_string(id) +
                       " (the language tokens are numbered after a dense dictionary)");
    entries.emplace_back(dict.piece(id), id);
  }
  return finish(std::move(entries), language_tokens, model_size, vocab_json, config_path);
}

}  // namespace s2s::text
