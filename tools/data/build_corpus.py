#!/usr/bin/python3
"""Build the English-German parallel corpus for s2s's default model from text Debian carries.

Sources (see README.md next to this file for sizes and licences):
  1. Debian package-description translations (DDTP): `apt-get update` with
     Acquire::Languages=en,de into a scratch lists directory fetches Translation-en and
     Translation-de; descriptions are paired by Description-md5 and cut into short descriptions,
     paragraphs, bullet items and sentences where both sides cut into the same number of pieces.
  2. The Ding German-English dictionary (Debian package trans-de-en): entries, phrases and
     example sentences, aligned on the '|' and ';' separators.
  3. German gettext catalogs (.mo) of a few large packages: msgid/msgstr pairs with keyboard
     accelerators, markup and format placeholders cleaned.

Packages are fetched with `apt-get download` into the work directory and unpacked with
`dpkg-deb -x`; nothing is installed on the system.  The held-out test and dev sets are whole
descriptions that training never sees: every training pair whose English or German side occurs in
them is dropped.

Usage: /usr/bin/python3 tools/data/build_corpus.py [--work DIR]
Writes DIR/{train,dev,test}.{en,de} and DIR/stats.json.
"""
import argparse
import glob
import hashlib
import json
import os
import random
import re
import struct
import subprocess
import sys
import unicodedata

GETTEXT_PACKAGES = [
    "gcc-12-locales", "gimp", "libreoffice-l10n-de", "inkscape", "vlc-l10n", "gnucash-common",
    "evolution-common", "nautilus-data",
]
DING_PACKAGE = "trans-de-en"
MAX_WORDS = 80          # longer segments are rarely aligned well and slow training down
MAX_LEN_RATIO = 2.5     # character-length ratio beyond which a pair is most likely misaligned
TEST_SENTENCES = 1500
DEV_SENTENCES = 500
SEED = 20261122


def log(msg):
    print(msg, file=sys.stderr, flush=True)


# ------------------------------------------------------------------------------------------------
# Fetching
# ------------------------------------------------------------------------------------------------
def apt_options(work):
    lists = os.path.join(work, "lists")
    os.makedirs(os.path.join(lists, "partial"), exist_ok=True)
    return ["-o", "Acquire::Languages=en,de", "-o", f"Dir::State::Lists={lists}",
            "-o", "APT::Get::List-Cleanup=0"]


def fetch_lists(work):
    lists = os.path.join(work, "lists")
    if glob.glob(os.path.join(lists, "*Translation-de*")):
        return
    log("apt-get update (Translation-en, Translation-de) ...")
    subprocess.run(["apt-get", "update", "-qq"] + apt_options(work), check=True)


def apt_cat(path):
    """apt stores index files compressed (lz4 on Debian 12); apt-helper reads every variant."""
    out = subprocess.run(["/usr/lib/apt/apt-helper", "cat-file", path], check=True,
                         stdout=subprocess.PIPE).stdout
    return out.decode("utf-8", errors="replace")


def fetch_package(work, name):
    """Download and unpack one .deb into work/pkgs/<name>/ (once)."""
    dest = os.path.join(work, "pkgs", name)
    if os.path.isdir(dest):
        return dest
    debs = os.path.join(work, "debs")
    os.makedirs(debs, exist_ok=True)
    log(f"apt-get download {name} ...")
    subprocess.run(["apt-get", "download", "-qq"] + apt_options(work) + [name], check=True,
                   cwd=debs)
    deb = sorted(glob.glob(os.path.join(debs, f"{name}_*.deb")))[-1]
    os.makedirs(dest + ".tmp", exist_ok=True)
    subprocess.run(["dpkg-deb", "-x", deb, dest + ".tmp"], check=True)
    os.rename(dest + ".tmp", dest)
    return dest


# ------------------------------------------------------------------------------------------------
# Text helpers
# ------------------------------------------------------------------------------------------------
def normalize(s):
    s = unicodedata.normalize("NFC", s)
    s = s.replace("\u00ad", "")                      # soft hyphens
    return re.sub(r"\s+", " ", s).strip()


# Abbreviations after which a full stop does not end a sentence (both languages).
_ABBREV = ["e.g", "i.e", "etc", "vs", "cf", "approx", "incl", "z.B", "z. B", "d.h", "d. h", "u.a",
           "u. a", "bzw", "ca", "evtl", "ggf", "inkl", "sog", "usw", "vgl", "Nr", "Dr", "Mr", "Mrs",
           "St", "No", "Vol", "v", "s.o", "s.u", "u.ä", "o.ä", "zB", "bspw", "Hr", "Fr", "Prof"]
_ABBREV_RE = re.compile(r"(?:^|(?<=\s)|(?<=\())(" + "|".join(re.escape(a) for a in _ABBREV) +
                        r")\.$")
_SPLIT_RE = re.compile(r"(?<=[.!?:])\s+(?=[\"'„“(]?[A-ZÄÖÜ0-9])")


def split_sentences(text):
    parts, cur = [], ""
    for piece in _SPLIT_RE.split(text):
        cur = f"{cur} {piece}" if cur else piece
        if _ABBREV_RE.search(cur) or re.search(r"\b[A-Za-z]\.$", cur):
            continue                                 # "e.g." or an initial: not a sentence end
        parts.append(cur)
        cur = ""
    if cur:
        parts.append(cur)
    return parts


# ------------------------------------------------------------------------------------------------
# 1. Package descriptions
# ------------------------------------------------------------------------------------------------
def parse_translations(text, lang):
    """md5 -> (short, [long lines]) from a Translation-xx file."""
    out, md5, field, short, body = {}, None, f"Description-{lang}:", None, None
    def flush():
        if md5 and short is not None:
            out[md5] = (short, body)
    for line in text.split("\n"):
        if line.startswith("Description-md5:"):
            flush()
            md5, short, body = line.split(":", 1)[1].strip(), None, []
        elif line.startswith(field):
            short = line[len(field):].strip()
        elif line.startswith(" ") and body is not None and short is not None:
            body.append(line[1:])
        elif line.startswith("Package:") or not line.strip():
            continue
    flush()
    return out


def paragraphs(body):
    """Long description -> list of paragraphs; each a list of blocks (prose or bullet item)."""
    paras, cur = [], []
    for line in body:
        if line.strip() == ".":
            paras.append(cur)
            cur = []
        else:
            cur.append(line)
    paras.append(cur)
    result = []
    for lines in paras:
        blocks, block = [], None
        for line in lines:
            m = re.match(r"^\s*([*+\-o•]|\d+[.)])\s+(.*)$", line)
            if m:
                if block:
                    blocks.append(block)
                block = m.group(2)
            elif block is None:
                block = line.strip()
            else:
                block += " " + line.strip()
        if block:
            blocks.append(block)
        result.append([normalize(b) for b in blocks if normalize(b)])
    return [p for p in result if p]


def align_descriptions(en, de):
    """Yield (md5, en, de) segments: short descriptions, then blocks, then sentences."""
    for md5, (de_short, de_body) in de.items():
        if md5 not in en:
            continue
        en_short, en_body = en[md5]
        yield md5, normalize(en_short), normalize(de_short)
        ep, dp = paragraphs(en_body), paragraphs(de_body)
        if len(ep) != len(dp):
            continue
        for eblocks, dblocks in zip(ep, dp):
            if len(eblocks) != len(dblocks):
                continue
            for eb, db in zip(eblocks, dblocks):
                es, ds = split_sentences(eb), split_sentences(db)
                if len(es) == len(ds):
                    for a, b in zip(es, ds):
                        yield md5, a, b
                elif len(eb.split()) <= MAX_WORDS:
                    yield md5, eb, db


def description_pairs(work):
    fetch_lists(work)
    lists = os.path.join(work, "lists")
    en, de = {}, {}
    for path in sorted(glob.glob(os.path.join(lists, "*_i18n_Translation-en*"))):
        en.update(parse_translations(apt_cat(path), "en"))
    for path in sorted(glob.glob(os.path.join(lists, "*_i18n_Translation-de*"))):
        de.update(parse_translations(apt_cat(path), "de"))
    log(f"descriptions: {len(en)} English, {len(de)} German")
    return list(align_descriptions(en, de))


# ------------------------------------------------------------------------------------------------
# 2. Ding dictionary
# ------------------------------------------------------------------------------------------------
_DING_MARKUP = re.compile(r"\{[^}]*\}|\[[^\]]*\]|<[^>]*>|/[A-Z][^/]*/")


def clean_ding(s):
    s = _DING_MARKUP.sub("", s)
    s = re.sub(r"\([^)]*\)", lambda m: m.group(0) if len(m.group(0)) > 40 else "", s)
    return normalize(s.replace("~", ""))


def ding_pairs(work):
    root = fetch_package(work, DING_PACKAGE)
    path = os.path.join(root, "usr/share/trans/de-en")
    out = []
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            if line.startswith("#") or "::" not in line:
                continue
            de_side, en_side = line.rstrip("\n").split("::", 1)
            de_parts, en_parts = de_side.split("|"), en_side.split("|")
            if len(de_parts) != len(en_parts):
                continue
            for d, e in zip(de_parts, en_parts):
                ds, es = d.split(";"), e.split(";")
                # Synonym lists align one to one only when both sides have the same count.
                pairs = zip(ds, es) if len(ds) == len(es) else [(ds[0], es[0])]
                for dd, ee in pairs:
                    dd, ee = clean_ding(dd), clean_ding(ee)
                    if dd and ee:
                        out.append(("ding", ee, dd))
    return out


# ------------------------------------------------------------------------------------------------
# 3. gettext catalogs
# ------------------------------------------------------------------------------------------------
def read_mo(path):
    """Parse a GNU .mo file -> list of (msgid, msgstr); plural forms give their first form."""
    data = open(path, "rb").read()
    magic = struct.unpack("<I", data[:4])[0]
    endian = "<" if magic == 0x950412de else ">"
    _, n, orig_off, trans_off = struct.unpack(endian + "4I", data[4:20])
    out = []
    for i in range(n):
        olen, opos = struct.unpack(endian + "2I", data[orig_off + 8 * i: orig_off + 8 * i + 8])
        tlen, tpos = struct.unpack(endian + "2I", data[trans_off + 8 * i: trans_off + 8 * i + 8])
        msgid = data[opos:opos + olen].decode("utf-8", errors="replace")
        msgstr = data[tpos:tpos + tlen].decode("utf-8", errors="replace")
        if not msgid or not msgstr:
            continue                                  # the header entry, or untranslated
        msgid = msgid.split("\x04")[-1].split("\x00")[0]   # drop msgctxt, take singular form
        out.append((msgid, msgstr.split("\x00")[0]))
    return out


# printf formats, GCC's own (%qD, %<, %>), Qt's %1, {0}/{name}, $(VAR), ${VAR}, $VAR$.
_PLACEHOLDER = re.compile(r"%(?:\d+\$)?[-+ #0]*\d*(?:\.\d+)?[hlLqjzt]*[A-Za-z<>%]|"
                          r"\{[^{}]*\}|\$\([^)]*\)|\$\{[^}]*\}|%\d+|\$[A-Z_]+\$?")


def clean_message(s):
    """Accelerators (_File, ~File, &File), markup and escapes out; None when unusable."""
    if "\n" in s.strip() and len(s) < 30:
        return None
    s = re.sub(r"<[^>]+>", "", s)
    s = re.sub(r"[~&](?=\w)", "", s)                  # accelerators: "&File", "V&iew", "~Save"
    s = re.sub(r"(?<![^\W\d_])_(?=[^\W\d_])|(?:^|(?<=\s))_(?=\w)", "", s)   # "_File", "Dat_ei"
    s = re.sub(r"\s*\(_?\w\)$", "", s)              # "(_S)"-style accelerators after the label
    s = s.replace("&amp;", "&").replace("&lt;", "<").replace("&gt;", ">").replace("&quot;", '"')
    return normalize(s) or None


def gettext_pairs(work):
    out = []
    for pkg in GETTEXT_PACKAGES:
        try:
            root = fetch_package(work, pkg)
        except subprocess.CalledProcessError:
            log(f"warning: could not download {pkg}; skipped")
            continue
        mos = [p for p in glob.glob(os.path.join(root, "**", "*.mo"), recursive=True)
               if "/de/" in p]
        n0 = len(out)
        for mo in sorted(mos):
            for msgid, msgstr in read_mo(mo):
                # Messages whose placeholders differ cannot be cleaned safely; the rest lose them.
                if sorted(_PLACEHOLDER.findall(msgid)) != sorted(_PLACEHOLDER.findall(msgstr)):
                    continue
                e = clean_message(_PLACEHOLDER.sub("", msgid))
                d = clean_message(_PLACEHOLDER.sub("", msgstr))
                if e and d and e != d and re.search(r"[A-Za-z]{2}", e):
                    out.append((f"gettext:{pkg}", e, d))
        log(f"gettext {pkg}: {len(out) - n0} pairs from {len(mos)} catalogs")
    return out


# ------------------------------------------------------------------------------------------------
# Filtering and splitting
# ------------------------------------------------------------------------------------------------
def keep(en, de):
    if not en or not de:
        return False
    ne, nd = len(en.split()), len(de.split())
    if ne > MAX_WORDS or nd > MAX_WORDS:
        return False
    le, ld = len(en), len(de)
    if max(le, ld) > 20 and max(le, ld) / max(1, min(le, ld)) > MAX_LEN_RATIO:
        return False
    if "\ufffd" in en or "\ufffd" in de or re.search(r"https?://\S{60,}", en):
        return False
    return True


def split_heldout(desc):
    """Pick whole descriptions for test, then dev, until each holds enough sentence pairs.
    Returns (test pairs, dev pairs, the md5s of every description they came from)."""
    by_md5 = {}
    for md5, en, de in desc:
        by_md5.setdefault(md5, []).append((en, de))
    md5s = sorted(by_md5)
    random.Random(SEED).shuffle(md5s)
    sets, used, it = [], set(), iter(md5s)
    for target in (TEST_SENTENCES, DEV_SENTENCES):
        chosen, seen = [], set()
        for md5 in it:
            used.add(md5)
            for en, de in by_md5[md5][1:]:           # sentences only, not the short description
                # Test sentences are whole prose sentences, not list fragments or font names.
                if (keep(en, de) and len(en.split()) >= 4 and en != de and en not in seen
                        and re.match(r"^[\"'(]?[A-Z0-9]", en) and en.endswith((".", "!", "?"))):
                    seen.add(en)
                    chosen.append((en, de))
            if len(chosen) >= target:
                break
        sets.append(chosen)
    return sets[0], sets[1], used


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--work", default=os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                                   "out"))
    ap.add_argument("--no-ding", action="store_true")
    ap.add_argument("--no-gettext", action="store_true")
    args = ap.parse_args()
    os.makedirs(args.work, exist_ok=True)

    desc = description_pairs(args.work)
    test, dev, test_md5 = split_heldout(desc)
    held = {s for pair in test + dev for s in pair}

    sources = {"descriptions": [("desc", en, de) for md5, en, de in desc if md5 not in test_md5]}
    if not args.no_ding:
        sources["ding"] = ding_pairs(args.work)
    if not args.no_gettext:
        sources["gettext"] = gettext_pairs(args.work)

    train, seen, stats = [], set(), {}
    for name, pairs in sources.items():
        kept = 0
        for _, en, de in pairs:
            if not keep(en, de) or en in held or de in held:
                continue
            key = (en, de)
            if key in seen:
                continue
            seen.add(key)
            train.append((en, de))
            kept += 1
        stats[name] = {"raw": len(pairs), "kept": kept}
        log(f"{name}: {len(pairs)} raw, {kept} kept")
    random.Random(SEED).shuffle(train)

    for name, pairs in (("train", train), ("dev", dev), ("test", test)):
        for lang, idx in (("en", 0), ("de", 1)):
            with open(os.path.join(args.work, f"{name}.{lang}"), "w", encoding="utf-8") as f:
                for p in pairs:
                    f.write(p[idx] + "\n")
    stats.update({"train": len(train), "dev": len(dev), "test": len(test),
                  "test_descriptions": len(test_md5),
                  "train_sha1": hashlib.sha1("\n".join(e + "\t" + d for e, d in train)
                                             .encode()).hexdigest()})
    with open(os.path.join(args.work, "stats.json"), "w") as f:
        json.dump(stats, f, indent=1)
    log(json.dumps(stats))


if __name__ == "__main__":
    main()
