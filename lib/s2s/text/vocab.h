// Vocabulary: piece <-> id for one side of a model, read the way Marian reads it
// (data/vocab.cpp createVocab chooses by file name; docs/models.md, "Vocabularies"):
//   *.spm                 a SentencePiece model: its own pieces and ids; eos/unk from the model
//   *.yml, *.yaml         a YAML mapping piece: id (yaml_vocab.h)
//   *.json                a JSON object piece: id (Nematus, Hugging Face vocab.json)
//   anything else         plain text: line k (0-based) is the piece with id k; empty lines and
//                         duplicates are errors; a trailing '\r' is dropped
// Ids are taken as written and need not be dense: size() is max id + 1 and unused ids have the
// piece "" (a file whose gaps exceed its piece count + 65536 is refused as corrupt, so that a
// tiny file cannot make s2s allocate a huge id table). With dim_limit m > 0, entries with id >= m are dropped (Marian --dim-vocabs); .spm
// vocabularies ignore it, as in Marian. Duplicates in yml/json keep Marian's std::map semantics:
// a repeated piece keeps its first id; an id given to several pieces maps back to the
// lexicographically last one.
// Special ids (DefaultVocab::addRequiredVocabulary): eos is the id of "</s>", unk the id of
// "<unk>" -- except that in yml/json files (Nematus back-compat) id 0 is eos if it is unused or
// is "eos", and id 1 is unk if it is unused or is "UNK". Never assume 0 and 1.
//
// Usage:
//   Vocabulary v = Vocabulary::load("opus.spm32k-spm32k.vocab.yml");
//   int id = v.id_of("▁Hello");           // v.unk_id() when unknown
//   const std::string& p = v.piece(id);
#pragma once

#include <string>
#include <unordered_map>
#include <vector>

#include "s2s/core/shape.h"
#include "s2s/text/yaml_vocab.h"

namespace s2s::text {

enum class VocabFormat { spm, yaml, json, text };

// The format Marian would use for this file name.
VocabFormat vocab_format_of(const std::string& path);

class Vocabulary {
 public:
  // ModelError naming the file when it is missing, malformed, empty or lacks </s> / <unk>.
  static Vocabulary load(const std::string& path, dim_t dim_limit = 0);
  // From entries already read, in file order; `format` decides whether the back-compat rule
  // applies (yaml and json only). `path` names the source in errors.
  static Vocabulary from_entries(const VocabEntries& entries, const std::string& path,
                                 VocabFormat format, dim_t dim_limit = 0);

  const std::string& path() const { return path_; }
  VocabFormat format() const { return format_; }
  int size() const { return static_cast<int>(pieces_.size()); }
  int eos_id() const { return eos_id_; }
  int unk_id() const { return unk_id_; }

  int id_of(const std::string& piece) const;
  bool contains(const std::string& piece) const { return ids_.count(piece) != 0; }
  // The piece of an id in [0, size()); "" for unused ids.
  const std::string& piece(int id) const;
  // Multilingual target labels ">>xxx<<" present in the vocabulary, in id order.
  std::vector<std::string> language_tokens() const;

 private:
  std::string path_;
  VocabFormat format_ = VocabFormat::text;
  std::vector<std::string> pieces_;  // id -> piece
  std::unordered_map<std::string, int> ids_;
  int eos_id_ = -1;
  int unk_id_ = -1;
};

}  // namespace s2s::text
