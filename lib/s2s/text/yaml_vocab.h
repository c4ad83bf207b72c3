// Reader for Marian YAML vocabularies (`*.vocab.yml`): a block mapping `piece: id`, written by
// yaml-cpp (marian-vocab), PyYAML (OPUS-MT scripts/vocab2yaml.py) or by hand (early OPUS-MT).
// Marian itself reads these files with yaml-cpp (YAML::Load); this parser accepts the same files
// and gives the same strings, an order of magnitude faster on a 30k-entry vocabulary, and its
// errors name the file and line.
//
// Accepted, one entry per mapping item (docs/models.md, "Vocabularies"):
//   plain keys         </s>: 0            split on the last ": " of the line (a plain key cannot
//                                         contain ": " in YAML, but hand-written files did)
//   double-quoted      "\"": 2            escapes \" \\ \/ \  \t \n \r \0 \a \b \e \f \v \N \_ \L \P
//                                         \xHH \uHHHH \UHHHHHHHH (code points, written as UTF-8)
//   single-quoted      'it''s': 3         '' is a quote
//   complex keys       ? "long key"       the key after "? ", the value on the next ": " line;
//                      : 4                quoted keys there may continue over indented lines (YAML
//                                         line folding, escaped line breaks)
//   comments (# ...), blank lines, "---" / "..." document markers, "%" directives, a UTF-8 BOM.
// Values are non-negative decimal integers (< 2^31). Where yaml-cpp departs from the YAML spec,
// this parser follows yaml-cpp, because Marian trained and decodes with it: the plain keys ~, null,
// Null, NULL read as the string "null", and \N, \_ give the single bytes 0x85, 0xA0 (not UTF-8). Flow collections ({...}, [...]), anchors, aliases, tags and
// block scalars are rejected with a ModelError.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace s2s::text {

using VocabEntries = std::vector<std::pair<std::string, int>>;

// Parses YAML text; `path` starts every error message ("vocab.yml:12: ...").
VocabEntries parse_yaml_vocab(const std::string& text, const std::string& path);

// Reads and parses a file. Entries come in file order, duplicates included.
VocabEntries load_yaml_vocab(const std::string& path);

}  // namespace s2s::text
