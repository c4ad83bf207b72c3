"""German gettext catalogs (.mo) of every Debian package that carries one.

The Contents indexes list each file of each package; every `.../de/LC_MESSAGES/*.mo` (and
`de_DE`) names a package to fetch.  Many catalogs exist in several packages (a library built
for two API versions, a -data package and an old transitional one): each catalog name is taken
from one package only, the smallest (then alphabetically first) that has it, so that the corpus
does not hold the same catalog twice and the download stays small.  Packages above
MAX_PACKAGE_BYTES are skipped (game data of hundreds of MB for one small catalog), except the
catalogs of the first corpus (ALWAYS).  Only the German catalogs and the copyright file are
unpacked from each .deb.
"""
import os
import re
import struct

from common import (log, contents, package_sizes, download_debs, extract_members,
                    read_copyright_licenses, normalize)

MAX_PACKAGE_BYTES = 20_000_000
# The first corpus's packages, kept whatever their size (libreoffice-l10n-de is 30 MB).
ALWAYS = ["gcc-12-locales", "gimp", "libreoffice-l10n-de", "inkscape", "vlc-l10n",
          "gnucash-common", "evolution-common", "nautilus-data"]
_MO_PATH = r"^\S*/de(?:_DE)?/LC_MESSAGES/[^/\s]+\.mo\s"
_PATTERNS = ["*/de/LC_MESSAGES/*.mo", "*/de_DE/LC_MESSAGES/*.mo", "./usr/share/doc/*/copyright"]


def select_packages(work, held_out):
    """-> (sorted training packages, sorted held-out packages that have catalogs, sizes).
    Catalog names of held-out packages are never taken from another package either."""
    sizes = package_sizes(work)
    by_pkg = {}
    for path, pkg in contents(work, _MO_PATH):
        if pkg in sizes:
            by_pkg.setdefault(pkg, set()).add(os.path.basename(path))
    taken = set()
    for pkg in held_out:
        taken |= by_pkg.get(pkg, set())
    chosen = []
    order = sorted(by_pkg, key=lambda p: (p not in ALWAYS, sizes[p], p))
    for pkg in order:
        if pkg in held_out:
            continue
        if pkg not in ALWAYS and sizes[pkg] > MAX_PACKAGE_BYTES:
            continue
        new = by_pkg[pkg] - taken
        if not new:
            continue                                 # every catalog already comes from elsewhere
        taken |= new
        chosen.append(pkg)
    return sorted(chosen), sorted(p for p in held_out if p in by_pkg), sizes


def fetch_catalogs(work, pkgs):
    """Download and partly unpack; -> {pkg: unpacked root}."""
    debs = download_debs(work, pkgs)
    roots = {}
    for pkg in pkgs:
        if pkg in debs:
            roots[pkg] = extract_members(debs[pkg], os.path.join(work, "pkgs-de", pkg),
                                         _PATTERNS)
    return roots


def read_mo(path):
    """Parse a GNU .mo file -> list of (msgid, msgstr); plural forms give their first form."""
    data = open(path, "rb").read()
    if len(data) < 20:
        return []
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


# printf formats, GCC's own (%qD, %<, %>), Qt's %1, {0}/{name}, $(VAR), ${VAR}, $VAR$,
# Python's %(name)s, KDE's %1 and Ruby's %{name}.
_PLACEHOLDER = re.compile(r"%\([A-Za-z_0-9]+\)[-+ #0]*\d*(?:\.\d+)?[a-zA-Z]|"
                          r"%(?:\d+\$)?[-+ #0]*\d*(?:\.\d+)?[hlLqjzt]*[A-Za-z<>%]|"
                          r"%\{[^}]*\}|\{[^{}]*\}|\$\([^)]*\)|\$\{[^}]*\}|%\d+|\$[A-Z_]+\$?")
# KDE's translator-credit and similar pseudo-messages, and the file-name/format-only entries.
_SKIP_ID = re.compile(r"^(?:NAME OF TRANSLATORS|EMAIL OF TRANSLATORS|Your names?|Your emails?)$|"
                      r"^_?translator[-_ ]credits$", re.I)


_EMPTY_QUOTES = re.compile(r"""(?:"\s*"|'\s*'|„\s*“|“\s*”|»\s*«|«\s*»|‚\s*‘|‘\s*’|\(\s*\)|\[\s*\]|<\s*>)""")


def drop_placeholders(s):
    """Placeholders out, and what they leave behind: "File '%s' not found." -> "File not
    found.", "Datei „%s“ nicht gefunden" -> "Datei nicht gefunden", "Could not open %s." ->
    "Could not open." (both sides the same way, so the pair still matches)."""
    t = _PLACEHOLDER.sub("", s)
    if t == s:
        return s
    t = _EMPTY_QUOTES.sub("", t)
    t = re.sub(r"[ \t]+([.,:;!?])", r"\1", t)
    return re.sub(r"[ \t]{2,}", " ", t)


def clean_message(s):
    """Accelerators (_File, ~File, &File), markup and escapes out; None when unusable."""
    if "\n" in s.strip() and len(s) < 30:
        return None
    t = re.sub(r"<[^>]+>", "", s)
    s = _EMPTY_QUOTES.sub("", t) if t != s else s     # "[<AF>]" -> "[]" -> ""
    s = re.sub(r"[~&](?=\w)", "", s)                  # accelerators: "&File", "V&iew", "~Save"
    s = re.sub(r"(?<![^\W\d_])_(?=[^\W\d_])|(?:^|(?<=\s))_(?=\w)", "", s)   # "_File", "Dat_ei"
    s = re.sub(r"\s*\(_?\w\)$", "", s)              # "(_S)"-style accelerators after the label
    s = s.replace("&amp;", "&").replace("&lt;", "<").replace("&gt;", ">").replace("&quot;", '"')
    return normalize(s) or None


def catalog_pairs(root, strict=False):
    """All cleaned (en, de) pairs of the German catalogs under one unpacked package, in sorted
    catalog order; -> (pairs, number of catalogs).  strict (the held-out packages): messages
    with placeholders are left out instead of cleaned, because "Could not open %s." loses a
    word with its placeholder, which is noise in training but a wrong reference in a test."""
    mos = []
    for dirpath, _, files in os.walk(root):
        for f in files:
            p = os.path.join(dirpath, f)
            if f.endswith(".mo") and re.search(r"/de(?:_DE)?/LC_MESSAGES/", p):
                mos.append(p)
    out = []
    for mo in sorted(mos):
        for msgid, msgstr in read_mo(mo):
            if _SKIP_ID.match(msgid.strip()) or (strict and _PLACEHOLDER.search(msgid)):
                continue
            # Messages whose placeholders differ cannot be cleaned safely; the rest lose them.
            if sorted(_PLACEHOLDER.findall(msgid)) != sorted(_PLACEHOLDER.findall(msgstr)):
                continue
            # GTK accelerators inside a word ("Einfache_s") are not caught by clean_message's
            # word-start rule; when each side has exactly one "_" before a letter, both are it.
            if (msgid.count("_") == 1 and msgstr.count("_") == 1
                    and re.search(r"_\w", msgid) and re.search(r"_\w", msgstr)):
                msgid, msgstr = msgid.replace("_", ""), msgstr.replace("_", "")
            e = clean_message(drop_placeholders(msgid))
            d = clean_message(drop_placeholders(msgstr))
            if e and d and e != d and re.search(r"[A-Za-z]{2}", e):
                out.append((e, d))
    return out, len(mos)


def gettext_source(work, held_out):
    """-> (training pairs [(tag, en, de)], held-out pairs {pkg: [(en, de)]}, package table)."""
    train_pkgs, held_pkgs, sizes = select_packages(work, set(held_out))
    log(f"gettext: {len(train_pkgs)} packages for training "
        f"({sum(sizes[p] for p in train_pkgs) / 1e6:.0f} MB), {len(held_pkgs)} held out")
    roots = fetch_catalogs(work, train_pkgs + held_pkgs)
    train, held, table = [], {}, []
    for pkg in sorted(roots):
        pairs, n_mo = catalog_pairs(roots[pkg], strict=pkg in held_pkgs)
        table.append({"package": pkg, "catalogs": n_mo, "pairs": len(pairs),
                      "bytes": sizes.get(pkg, 0), "held_out": pkg in held_pkgs,
                      "licence": read_copyright_licenses(roots[pkg], pkg)})
        if pkg in held_pkgs:
            held[pkg] = pairs
        else:
            train.extend((f"gettext:{pkg}", e, d) for e, d in pairs)
    return train, held, table
