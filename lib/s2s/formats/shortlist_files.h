// Shortlist files (model/shortlist.h says what a shortlist does), read for one model:
//  - Marian's text shortlist (lex.s2t, what extract_lex writes): `TARGET SOURCE PROB` per line,
//    the pieces as the vocabularies spell them; read and pruned as marian-dev's
//    src/data/shortlist.cpp LexicalShortlistGenerator (load, prune) does: lines naming NULL are
//    skipped, unknown pieces count as <unk>, a later line of the same pair replaces the earlier,
//    and each source piece keeps its `best` likeliest targets of probability above `threshold`
//    (ties: the larger target id first).
//  - Marian's binary shortlist (Bergamot's lex.*.bin, marian-conv --shortlist): a header of six
//    little-endian uint64 (magic 0xF11A48D5013417F5, checksum, first, best, offset count, list
//    length), the offsets (uint64, one per source id plus one), the lists (uint32 target ids);
//    checked as BinaryShortlistGenerator::load and contentCheck do (size, checksum: Marian's
//    util::hashMem, bounds). `first` comes from the file.
//  - CTranslate2's vocabulary map (vmap.txt, src/vocabulary_map.cc): `SOURCE<TAB>TARGETS` per
//    line, the source an n-gram of pieces separated by spaces, an empty source for the targets
//    that are always candidates; pieces the vocabularies lack are left out (CTranslate2 maps
//    them to <unk>).
// Errors are ModelErrors naming the file (and the line).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "s2s/model/model.h"
#include "s2s/model/shortlist.h"

namespace s2s::formats {

// What Marian's --shortlist takes: FILE [first [best [threshold]]] for a text file (defaults 100,
// 100, 0); FILE [check] for a binary one (check defaults to 1); a vocabulary map takes FILE.
struct ShortlistSpec {
  std::string path;
  std::vector<std::string> args;  // what followed the path
};

// Reads the file (its kind from its first bytes and its lines) for `model`'s vocabularies.
std::shared_ptr<const model::Shortlist> read_shortlist(const ShortlistSpec& spec,
                                                       const model::Model& model);

// A model folder's own shortlist, as Bergamot and CTranslate2 ship them: lex.*.bin, lex.*.s2t
// or vmap.txt in the folder; "" when it has none.
std::string folder_shortlist(const std::string& folder);

}  // namespace s2s::formats
