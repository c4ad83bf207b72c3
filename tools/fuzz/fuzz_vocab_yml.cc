// text::parse_yaml_vocab on the bytes, then the entries turned into a Vocabulary as a *.vocab.yml
// would be (duplicates, sparse ids, the Nematus special-id rules).
#include "fuzz_common.h"
#include "s2s/text/vocab.h"
#include "s2s/text/yaml_vocab.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  s2s::fuzz::expect_clean([&] {
    const s2s::text::VocabEntries entries = s2s::text::parse_yaml_vocab(text, "fuzz.vocab.yml");
    const s2s::text::Vocabulary v = s2s::text::Vocabulary::from_entries(
        entries, "fuzz.vocab.yml", s2s::text::VocabFormat::yaml);
    // Every parsed piece must be found again, and the special ids must be valid ids.
    for (const auto& entry : entries)
      if (!v.contains(entry.first)) std::abort();
    (void)v.piece(v.eos_id());
    (void)v.piece(v.unk_id());
  });
  return 0;
}
