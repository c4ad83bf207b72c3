// Vocabulary::load on a *.json file holding the bytes (a Hugging Face / Nematus vocab.json object,
// or a CTranslate2 token list).
#include "fuzz_common.h"
#include "s2s/text/vocab.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string path = s2s::fuzz::write_temp("vocab.json", data, size);
  s2s::fuzz::expect_clean([&] {
    const s2s::text::Vocabulary v = s2s::text::Vocabulary::load(path);
    (void)v.piece(v.eos_id());
    (void)v.piece(v.unk_id());
  });
  return 0;
}
