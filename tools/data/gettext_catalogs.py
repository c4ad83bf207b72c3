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
from placeholders import TAG, find_patterns, placeholders

MAX_PACKAGE_BYTES = 20_000_000
# The first corpus's packages, kept whatever their size (libreoffice-l10n-de is 30 MB).
ALWAYS = ["gcc-12-locales", "gimp", "libreoffice-l10n-de", "inkscape", "vlc-l10n",
          "gnucash-common", "evolution-common", "nautilus-data"]
# Games whose catalogs hold story, dialogue and everyday objects (general language, not
# software), kept whatever their size: the game data of 20-380 MB comes with them.  They form
# the corpus's "games" source.
STORY = ["cataclysm-dda-data", "freeciv-data", "freedroidrpg-data", "naev-data",
         "warzone2100-data", "wesnoth-1.16-data", "widelands-data"]
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
        if pkg not in ALWAYS and pkg not in STORY and sizes[pkg] > MAX_PACKAGE_BYTES:
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


def catalog_messages(root):
    """All (msgid, msgstr) of the German catalogs under one unpacked package, in sorted catalog
    order, translator-credit entries left out; -> (messages, number of catalogs)."""
    mos = []
    for dirpath, _, files in os.walk(root):
        for f in files:
            p = os.path.join(dirpath, f)
            if f.endswith(".mo") and re.search(r"/de(?:_DE)?/LC_MESSAGES/", p):
                mos.append(p)
    out = []
    for mo in sorted(mos):
        out.extend(m for m in read_mo(mo) if not _SKIP_ID.match(m[0].strip()))
    return out, len(mos)


def cleaned_pairs(messages, strict=False):
    """The third edition's cleaning, kept for the held-out sets (test-msg must stay the same
    lines): placeholders, accelerators, markup and entities out.  strict: messages with
    placeholders are left out instead of cleaned, because "Could not open %s." loses a word with
    its placeholder, which would be a wrong reference in a test."""
    out = []
    for msgid, msgstr in messages:
        if strict and _PLACEHOLDER.search(msgid):
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
    return out


# Entities: kept as the catalogs have them, as are tags (placeholders.TAG).
_ENTITY = re.compile(r"&(?:[A-Za-z]\w*|#\d+|#x[0-9A-Fa-f]+);")
# Accelerator marks: GTK "_File", Qt/KDE "&File", LibreOffice "~File", each before a letter or
# digit; "(_S)" after a label (catalogs of languages without Latin letters copied into German).
_ACCELERATOR = {"_": re.compile(r"_(?=[^\W_])"), "&": re.compile(r"&(?=[^\W_])"),
                "~": re.compile(r"~(?=[^\W_])")}


def kept_spans(s):
    """[(begin, end)] of what a message keeps untouched: protect.cc's patterns (placeholders,
    e-mail addresses, URLs, paths), markup tags and entities."""
    spans = [(b, e) for b, e, _ in find_patterns(s)]
    spans += [m.span() for rx in (TAG, _ENTITY) for m in rx.finditer(s)]
    return sorted(spans)


def accelerator_marks(s):
    """Offsets of the accelerator marks of s outside kept spans.  A mark is taken only when its
    character occurs once as a mark (a label has one accelerator): "LD_LIBRARY_PATH" or
    "Tom&Jerry&Co" hold none."""
    if not any(c in s for c in _ACCELERATOR):
        return []
    spans = kept_spans(s)
    inside = lambda i: any(b <= i < e for b, e in spans)
    marks = []
    for rx in _ACCELERATOR.values():
        found = [m.start() for m in rx.finditer(s) if not inside(m.start())]
        if len(found) == 1:
            marks += found
    return marks


def strip_accelerators(s):
    """Accelerator marks out ("_Open", "Dat_ei", "&File", "~Save", "Speichern (_S)").  They go
    because they are no part of the text: a key hint for a menu label that each language places
    on a letter of its own word (_File / _Datei), so the model could not learn to copy them, and
    inside a word they would cut it into pieces the model never sees in running text."""
    for i in sorted(accelerator_marks(s), reverse=True):
        s = s[:i] + s[i + 1:]
    return re.sub(r"\s*\(_\w\)$", "", s)


def tags_of(s):
    """The tag names of s, sorted: "<b>x</b>" -> ["/b", "b"]."""
    return sorted(re.match(r"</?[A-Za-z][\w:-]*", m.group(0)).group(0).lstrip("<")
                  for m in TAG.finditer(s))


def keep_message(msgid, msgstr):
    """(en, de) for training, placeholders, markup, entities and addresses as the catalog has
    them, accelerator marks out; None when the sides differ in placeholders (protect.cc's rules)
    or tags, or the message is not text."""
    if "\n" in msgid.strip() and len(msgid) < 30:
        return None                                  # a column of labels, not a sentence
    if sorted(placeholders(msgid)) != sorted(placeholders(msgstr)):
        return None
    if tags_of(msgid) != tags_of(msgstr):
        return None
    e, d = normalize(strip_accelerators(msgid)), normalize(strip_accelerators(msgstr))
    if not e or not d or e == d or not re.search(r"[A-Za-z]{2}", e):
        return None
    # An accelerator taken out may leave a placeholder behind: "%_name%" -> "%name%" (%n).
    if sorted(placeholders(e)) != sorted(placeholders(msgid)):
        return None
    return e, d


def training_pairs(messages):
    return [p for p in (keep_message(e, d) for e, d in messages) if p]


def has_kept_markup(s):
    """A message with something the model must copy: a placeholder or a markup tag."""
    return bool(placeholders(s) or TAG.search(s))


def gettext_source(work, held_out, single_line=()):
    """-> (training pairs [(tag, en, de)], held-out pairs {pkg: [(en, de)]} cleaned as the third
    edition's test-msg, held-out pairs with placeholders or markup as the catalogs have them
    {pkg: [(en, de)]}, package table).  The held-out pairs of the packages in single_line come
    from one-line messages only (a game's "Title\nExplanation" is not one sentence)."""
    train_pkgs, held_pkgs, sizes = select_packages(work, set(held_out))
    log(f"gettext: {len(train_pkgs)} packages for training "
        f"({sum(sizes[p] for p in train_pkgs) / 1e6:.0f} MB), {len(held_pkgs)} held out")
    roots = fetch_catalogs(work, train_pkgs + held_pkgs)
    train, held, marked, table = [], {}, {}, []
    for pkg in sorted(roots):
        messages, n_mo = catalog_messages(roots[pkg])
        if pkg in held_pkgs:
            one_line = [m for m in messages if pkg not in single_line or "\n" not in m[0].strip()]
            pairs = held[pkg] = cleaned_pairs(one_line, strict=True)
            marked[pkg] = [p for p in training_pairs(messages) if has_kept_markup(p[0])]
        else:
            pairs = training_pairs(messages)
            train.extend((f"gettext:{pkg}", e, d) for e, d in pairs)
        table.append({"package": pkg, "catalogs": n_mo, "pairs": len(pairs),
                      "bytes": sizes.get(pkg, 0), "held_out": pkg in held_pkgs,
                      "licence": read_copyright_licenses(roots[pkg], pkg)})
    return train, held, marked, table
