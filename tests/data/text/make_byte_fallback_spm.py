#!/usr/bin/python3
"""Writes tests/data/text/byte-fallback.spm and byte-fallback.vocab.yml: a tiny SentencePiece
model with byte_fallback (every UTF-8 byte has a piece <0x00>..<0xFF>, so no character is ever
<unk>), with the ids of the default model's vocabulary (</s> 0, <unk> 1, no <s>, no <pad>), as
tools/train/train_spm.py makes it, and its vocabulary in the vocab.yml form export_marian.py
writes (pieces as yaml-cpp keys, one id each).

The text it learns from is a few English and German sentences without '€', '\\', '@', emoji or
CJK characters, so those can only be spelled with byte pieces.  "identity" normalization keeps
the file small (nmt_nfkc's character map is 240 KB).

It also writes no-byte-fallback.spm and no-byte-fallback.vocab.yml, the same model without byte
pieces, as older vocabularies (OPUS-MT's, the default model's before its fourth edition) are:
there those characters, and '<', '^' and '~', encode to <unk>.

    /usr/bin/python3 tests/data/text/make_byte_fallback_spm.py
(needs Debian's python3-sentencepiece; training is deterministic, so a rerun writes the same
files).
"""
import io
import os
import sys

import sentencepiece as spm

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "..", "tools", "fixtures"))
import make_marian_fixtures as mf  # noqa: E402  (yamlcpp_key, as export_marian.py writes keys)

TEXT = """The file could not be saved.
Die Datei konnte nicht gespeichert werden.
Open the folder and select a file.
Öffnen Sie den Ordner und wählen Sie eine Datei.
Unable to connect to the server.
Verbindung mit dem Server nicht möglich.
I would like a cup of coffee, please.
Ich hätte gern eine Tasse Kaffee, bitte.
""".splitlines()


def write_model(name, byte_fallback):
    buf = io.BytesIO()
    spm.SentencePieceTrainer.train(
        sentence_iterator=iter(TEXT * 20), model_writer=buf, model_type="unigram",
        vocab_size=320 if byte_fallback else 64, hard_vocab_limit=False,
        byte_fallback=byte_fallback, character_coverage=1.0, normalization_rule_name="identity",
        bos_id=-1, eos_id=0, unk_id=1, pad_id=-1, num_threads=1, minloglevel=2)
    model = os.path.join(HERE, name + ".spm")
    with open(model, "wb") as f:
        f.write(buf.getvalue())
    sp = spm.SentencePieceProcessor(model_file=model)
    with open(os.path.join(HERE, name + ".vocab.yml"), "w", encoding="utf-8",
              newline="\n") as f:
        for i in range(sp.get_piece_size()):
            f.write("%s: %d\n" % (mf.yamlcpp_key(sp.id_to_piece(i)), i))


def main():
    write_model("byte-fallback", True)
    write_model("no-byte-fallback", False)


if __name__ == "__main__":
    main()
