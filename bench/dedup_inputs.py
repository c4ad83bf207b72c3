#!/usr/bin/python3
"""Inputs for measuring `s2s translate --dedup` (docs/performance.md, "Deduplication"): the
English side of the Debian corpus of tools/data *before* its deduplication, in the order the
sources list it, and the repeat rate of each (the share of lines that repeat an earlier line, and
of their bytes).

Usage: /usr/bin/python3 bench/dedup_inputs.py WORK OUT
WORK: the folder of tools/data/build_corpus.py --work (its lists/ and pkgs/ are reused: nothing
is downloaded again). Writes into OUT:
  gettext.en        msgids of every gettext catalog the corpus reads, cleaned as for training
  libreoffice.en    those of LibreOffice's 33 catalogs (a localisation dump of one product)
  descriptions.en   Debian package descriptions cut as for training (short descriptions,
                    paragraphs, items, sentences), in Translation-en's order
  lo4000.en         the first 4,000 lines of libreoffice.en
  desc1000.en       1,000 lines of descriptions.en from line 20,001
  train.en          a copy of WORK/train.en (deduplicated by pairs; its English side repeats)
"""
import os
import shutil
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tools", "data"))
import build_corpus  # noqa: E402


def repeat_rates(lines):
    """(share of lines equal to an earlier line, share of the bytes (with newlines) in them)."""
    seen, lines_repeated, bytes_repeated, total = set(), 0, 0, 0
    for line in lines:
        size = len(line.encode()) + 1
        total += size
        if line in seen:
            lines_repeated += 1
            bytes_repeated += size
        seen.add(line)
    return lines_repeated / max(1, len(lines)), bytes_repeated / max(1, total)


def main():
    work, out = sys.argv[1], sys.argv[2]
    os.makedirs(out, exist_ok=True)
    gettext = build_corpus.gettext_pairs(work)
    files = {
        "gettext.en": [en for _, en, _ in gettext],
        "libreoffice.en": [en for source, en, _ in gettext
                           if source == "gettext:libreoffice-l10n-de"],
        "descriptions.en": [en for _, en, _ in build_corpus.description_pairs(work)],
    }
    files["lo4000.en"] = files["libreoffice.en"][:4000]
    files["desc1000.en"] = files["descriptions.en"][20000:21000]
    shutil.copy(os.path.join(work, "train.en"), os.path.join(out, "train.en"))
    with open(os.path.join(work, "train.en"), encoding="utf-8") as f:
        files_read = {"train.en": f.read().split("\n")[:-1]}
    for name, lines in files.items():
        with open(os.path.join(out, name), "w", encoding="utf-8") as f:
            f.write("".join(line + "\n" for line in lines))
    for name, lines in {**files, **files_read}.items():
        by_line, by_byte = repeat_rates(lines)
        print(f"{name:16} {len(lines):7} lines  repeats: {by_line:6.1%} of lines, "
              f"{by_byte:6.1%} of bytes")


if __name__ == "__main__":
    main()
