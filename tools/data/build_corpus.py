#!/usr/bin/python3
"""Build the English-German parallel corpus for s2s's default model from text Debian carries.

Sources (see README.md next to this file for sizes and licences):
  1. Debian package-description translations (DDTP): `apt-get update` with
     Acquire::Languages=en,de into a scratch lists directory fetches Translation-en and
     Translation-de; descriptions are paired by Description-md5 and cut into short descriptions,
     paragraphs, bullet items and sentences where both sides cut into the same number of pieces.
  2. The Ding German-English dictionary (Debian package trans-de-en): entries, phrases and
     example sentences, aligned on the '|' and ';' separators.
  3. German gettext catalogs (.mo) of every package that has one (gettext_catalogs.py), messages
     kept with their placeholders and markup; the story-rich games among them (STORY) form
     the "games" source.
  4. GNOME/MATE help pages aligned element by element with their English (help_docs.py).
  5. Debian's translated manuals and LibreOffice's help, HTML aligned block by block
     (html_docs.py).

Packages are fetched with `apt-get download` into the work directory and unpacked with
`dpkg-deb`; nothing is installed on the system.  Six held-out sets:
  * test, dev: whole package descriptions (exactly as the first corpus made them, so that
    scores stay comparable);
  * test-msg: catalog messages of HELD_OUT_MSG packages, which training never sees;
  * test-doc: help segments of HELD_OUT_DOC packages, which training never sees;
  * test-everyday: sentences of HELD_OUT_EVERYDAY's catalogs (a game's conversations);
  * test-ph: messages of HELD_OUT_MSG packages with placeholders or markup, as the catalogs
    have them.
The first four are made exactly as for the third edition, before the new ones.
Every training pair whose English or German side equals, or near-duplicates (common.near_key:
same letters once case, digits, punctuation and spaces are ignored), a side of any held-out
pair is dropped.

Usage: /usr/bin/python3 tools/data/build_corpus.py [--work DIR]
Writes DIR/{train,dev,test,test-msg,test-doc,test-everyday,test-ph}.{en,de}, DIR/train.source,
DIR/stats.json, DIR/packages.json and DIR/samples.tsv.
"""
import argparse
import glob
import hashlib
import json
import os
import random
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import (log, fetch_lists, apt_cat, fetch_package, normalize, split_sentences, keep,
                    near_key, language_ok, MAX_WORDS)
import gettext_catalogs
import help_docs
import html_docs

DING_PACKAGE = "trans-de-en"
TEST_SENTENCES = 1500
DEV_SENTENCES = 500
HELD_SENTENCES = 1500           # per new test set (test-msg, test-doc)
SEED = 20261122
# Left out of training entirely: their catalogs (and any other package's catalog of the same
# name) and help pages.  Chosen as everyday desktop programs with sentence-like messages or
# help, from different projects, none of them a source of the first corpus.
# Both lists are left out of both sources (a package's help is not trained on when its
# messages are tested, and the other way round).
HELD_OUT_MSG = ["claws-mail-i18n", "deja-dup", "gnome-disk-utility", "gparted-common", "gramps",
                "hexchat-common", "pidgin-data", "remmina-common", "synaptic",
                "system-config-printer-common", "thunar-data", "transmission-gtk"]
HELD_OUT_DOC = ["eog", "evince-common", "file-roller", "gedit-common", "gnome-calculator", "gnote",
                "seahorse", "shotwell-common", "totem-common"]
# Left out of training for the everyday-sentences set (test-everyday): a game of conversations
# with its characters ("Can I help you somehow?" - "Kann ich irgendwie helfen?").
HELD_OUT_EVERYDAY = ["freedroidrpg-data"]
EVERYDAY_SENTENCES = 400
MARKED_SENTENCES = 500          # test-ph: held-out messages with placeholders or markup


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
# Held-out sets
# ------------------------------------------------------------------------------------------------
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


def whole_sentence(en, de):
    """>= 4 words, capital first, ending in . ! ?, passing the training filters."""
    return (keep(en, de) and language_ok(en, de) and len(en.split()) >= 4
            and re.match(r"^[\"'(]?[A-Z0-9]", en) is not None and en.endswith((".", "!", "?")))


def everyday_sentence(en, de):
    """A whole sentence of at most 25 words with nothing of a game's text markup ("[b]") or
    placeholders, on either side."""
    return (whole_sentence(en, de) and len(en.split()) <= 25
            and not re.search(r"[\[\]<>{}%$\\|]", en + de))


def marked_message(en, de):
    """A message of >= 3 words with a placeholder or tag, passing the training filters."""
    return keep(en, de) and language_ok(en, de) and len(en.split()) >= 3


def pick_heldout(by_pkg, taken_keys, n=HELD_SENTENCES, accept=whole_sentence):
    """Up to n pairs from the held-out packages' pairs {pkg: [(en, de)]} that `accept` takes
    (whole sentences unless told), one per near-duplicate key, spread evenly over the packages
    (round robin over each package's pairs shuffled with SEED), then shuffled."""
    pools = []
    for pkg in sorted(by_pkg):
        cand = [(en, de) for en, de in by_pkg[pkg] if accept(en, de)]
        random.Random(f"{SEED}:{pkg}").shuffle(cand)
        pools.append(cand)
    chosen, seen = [], set(taken_keys)
    while len(chosen) < n and any(pools):
        for pool in pools:
            while pool:
                en, de = pool.pop(0)
                k = near_key(en)
                if k not in seen and near_key(de) not in seen:
                    seen.add(k)
                    chosen.append((en, de))
                    break
            if len(chosen) >= n:
                break
    random.Random(SEED).shuffle(chosen)
    return chosen


# ------------------------------------------------------------------------------------------------
def write_lines(path, lines):
    with open(path, "w", encoding="utf-8") as f:
        for s in lines:
            f.write(s + "\n")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--work", default=os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                                   "out"))
    ap.add_argument("--no-ding", action="store_true")
    ap.add_argument("--no-gettext", action="store_true")
    ap.add_argument("--no-help", action="store_true")
    ap.add_argument("--no-manuals", action="store_true")
    ap.add_argument("--samples", type=int, default=30,
                    help="random kept pairs per source written to samples.tsv for review")
    args = ap.parse_args()
    os.makedirs(args.work, exist_ok=True)

    desc = description_pairs(args.work)
    test, dev, test_md5 = split_heldout(desc)

    sources = {"descriptions": [("desc", en, de) for md5, en, de in desc if md5 not in test_md5]}
    if not args.no_ding:
        sources["ding"] = ding_pairs(args.work)
    held_sets, packages = {}, {}
    if not args.no_gettext:
        catalogs, held, marked, packages["gettext"] = gettext_catalogs.gettext_source(
            args.work, HELD_OUT_MSG + HELD_OUT_DOC + HELD_OUT_EVERYDAY, HELD_OUT_EVERYDAY)
        story = {f"gettext:{p}" for p in gettext_catalogs.STORY}
        sources["gettext"] = [t for t in catalogs if t[0] not in story]
        sources["games"] = [t for t in catalogs if t[0] in story]
        held_sets["test-msg"] = {p: v for p, v in held.items() if p in HELD_OUT_MSG}
        held_sets["test-everyday"] = {p: v for p, v in held.items() if p in HELD_OUT_EVERYDAY}
        held_sets["test-ph"] = {p: v for p, v in marked.items() if p in HELD_OUT_MSG}
    if not args.no_help:
        sources["help"], held, packages["help"] = help_docs.help_source(
            args.work, HELD_OUT_MSG + HELD_OUT_DOC)
        held_sets["test-doc"] = {p: v for p, v in held.items() if p in HELD_OUT_DOC}
    if not args.no_manuals:
        sources["manuals"], packages["manuals"] = html_docs.manual_source(args.work)

    # The new test sets avoid the description sets and each other (near-duplicate keys).
    keys = {near_key(s) for pair in test + dev for s in pair}
    heldout = {"test": test, "dev": dev}
    # The third edition's sets first, picked as they were (they stay the same lines).
    picks = {"test-msg": (HELD_SENTENCES, whole_sentence),
             "test-doc": (HELD_SENTENCES, whole_sentence),
             "test-everyday": (EVERYDAY_SENTENCES, everyday_sentence),
             "test-ph": (MARKED_SENTENCES, marked_message)}
    for name, (n, accept) in picks.items():
        if name in held_sets:
            heldout[name] = pick_heldout(held_sets[name], keys, n, accept)
            keys |= {near_key(s) for pair in heldout[name] for s in pair}
    held = {s for pairs in heldout.values() for pair in pairs for s in pair}
    keys.discard("")

    # The new sources also go through the language check; descriptions and Ding keep the first
    # corpus's filters (their pairs are curated).
    checked = {"gettext", "games", "help", "manuals"}
    train, seen, stats, per_tag, samples = [], set(), {}, {}, []
    for name, pairs in sources.items():
        kept_pairs = []
        kept = tokens = overlap = bad = lang = dup = 0
        for tag, en, de in pairs:
            if not keep(en, de):
                bad += 1
                continue
            if name in checked and not language_ok(en, de):
                lang += 1
                continue
            if en in held or de in held or near_key(en) in keys or near_key(de) in keys:
                overlap += 1
                continue
            key = (en, de)
            if key in seen:
                dup += 1
                continue
            seen.add(key)
            train.append((en, de, name))
            kept_pairs.append((tag, en, de))
            kept += 1
            tokens += len(de.split())
            per_tag[tag] = per_tag.get(tag, 0) + 1
        stats[name] = {"read": len(pairs), "kept": kept, "de_tokens": tokens,
                       "dropped_length": bad, "dropped_language": lang,
                       "dropped_heldout_overlap": overlap, "dropped_duplicate": dup}
        log(f"{name}: {len(pairs)} read, {kept} kept, {tokens} German tokens")
        samples += random.Random(SEED).sample(kept_pairs, min(args.samples, len(kept_pairs)))
    random.Random(SEED).shuffle(train)

    # train.source names each training pair's source, line by line, so that training can weight
    # the sources (tools/train/train.py shows the descriptions twice an epoch).
    write_lines(os.path.join(args.work, "train.source"), [source for _, _, source in train])
    train = [(en, de) for en, de, _ in train]
    heldout["train"] = train
    for name, pairs in heldout.items():
        for lang, idx in (("en", 0), ("de", 1)):
            write_lines(os.path.join(args.work, f"{name}.{lang}"), [p[idx] for p in pairs])
    stats.update({"train": len(train), "train_de_tokens": sum(len(d.split()) for _, d in train),
                  "dev": len(dev), "test": len(test),
                  "test_descriptions": len(test_md5),
                  "test-msg": len(heldout.get("test-msg", [])),
                  "test-doc": len(heldout.get("test-doc", [])),
                  "test-everyday": len(heldout.get("test-everyday", [])),
                  "test-ph": len(heldout.get("test-ph", [])),
                  "held_out_msg_packages": HELD_OUT_MSG, "held_out_doc_packages": HELD_OUT_DOC,
                  "held_out_everyday_packages": HELD_OUT_EVERYDAY,
                  "train_sha1": hashlib.sha1("\n".join(e + "\t" + d for e, d in train)
                                             .encode()).hexdigest()})
    for source, rows in packages.items():
        for r in rows:
            tag = {"gettext": "gettext:", "help": "help:", "manuals": "manual:"}[source]
            r["kept"] = per_tag.get(tag + r.get("package", r.get("manual")), 0)
    write_lines(os.path.join(args.work, "samples.tsv"), ["\t".join(t) for t in samples])
    with open(os.path.join(args.work, "stats.json"), "w") as f:
        json.dump(stats, f, indent=1)
    with open(os.path.join(args.work, "packages.json"), "w") as f:
        json.dump(packages, f, indent=1, ensure_ascii=False)
    log(json.dumps(stats))


if __name__ == "__main__":
    main()
