"""GNOME/MATE help (Mallard `.page` and DocBook `.xml`) aligned element by element.

GNOME's help is translated with itstool (earlier xml2po): the German file under
usr/share/help/de/<app>/ is the English one under usr/share/help/C/<app>/ with each
translatable element's content replaced.  So when both files have the same sequence of block
elements (p, title, desc, item titles, table cells, DocBook para/entry/term...), the n-th block
of one translates the n-th of the other.  Files whose sequences differ (the translation lags
behind the English, or a translator restructured it) are skipped whole and counted.  Paragraphs
are cut into sentences when both sides cut into the same number.
"""
import os
import re
import xml.etree.ElementTree as ET

from common import (log, contents, package_sizes, download_debs, extract_members,
                    read_copyright_licenses, normalize, split_sentences)

# Block elements whose text is one segment (Mallard and DocBook).  An element that contains
# another of these is not a segment itself (a DocBook para around a list, a Mallard item
# around its p): only the innermost blocks are taken.
_SEGMENT = {"p", "title", "subtitle", "desc", "para", "simpara", "term", "entry", "caption",
            "member", "glossterm", "refpurpose", "bridgehead"}
# Code, commands and screens are not translated; credits and index terms are names.
_SKIP = {"code", "screen", "programlisting", "synopsis", "cmdsynopsis", "literallayout",
         "credit", "name", "email", "years", "indexterm", "revision", "author", "authorgroup",
         "copyright", "legalnotice", "othercredit", "address", "releaseinfo", "info-translator"}
_PATTERNS = ["./usr/share/help/de/*", "./usr/share/help/C/*", "./usr/share/doc/*/copyright"]
_HELP_PATH = r"^usr/share/help/de/\S+\.(?:page|xml|docbook)\s"
_UNRESOLVED = "\ue000"          # marks an entity or auto-filled link the text cannot show


def _local(tag):
    return tag.rsplit("}", 1)[-1] if isinstance(tag, str) else ""


def _text(el):
    """Text content with inline markup flattened.  Key sequences and menu paths read "Ctrl+R"
    and "Edit ▸ Copy" as in the rendered help; an empty <link xref> is filled in by the help viewer with the target page's
    title, which the source does not hold, so it poisons the segment."""
    parts = [el.text or ""]
    for ch in el:
        tag = _local(ch.tag)
        if tag == "keyseq" or tag == "keycombo":
            parts.append("+".join(_text(k) for k in ch if _local(k.tag) in ("key", "keycap")))
        elif tag == "guiseq":                        # menu paths, rendered "Edit ▸ Copy"
            parts.append(" ▸ ".join(_text(g) for g in ch if _local(g.tag) == "gui"))
        elif tag == "menuchoice":                    # DocBook's, rendered "Edit → Copy"
            parts.append(" → ".join(_text(g) for g in ch if _local(g.tag) != "shortcut"))
        elif tag in ("link", "xref") and not "".join(ch.itertext()).strip():
            parts.append(_UNRESOLVED)
        elif tag in ("media", "inlinemediaobject", "imagedata", "figure"):
            pass
        else:
            parts.append(_text(ch))
        parts.append(ch.tail or "")
    return "".join(parts)


def _has_segment_inside(el):
    return any(_local(d.tag) in _SEGMENT for d in el.iter() if d is not el)


def segments(root):
    """Document order list of (tag, text) of the innermost segment elements."""
    out = []

    def walk(el):
        tag = _local(el.tag)
        if tag in _SKIP:
            return
        if tag in _SEGMENT and not _has_segment_inside(el):
            out.append((tag, normalize(_text(el))))
            return
        for ch in el:
            walk(ch)
    walk(root)
    return out


def parse(path):
    """ElementTree of a help file; DocBook entities declared only in the external DTD become
    _UNRESOLVED so that the segments holding them are dropped but the file still parses."""
    data = open(path, "rb").read().decode("utf-8", errors="replace")
    try:
        return ET.fromstring(data.encode("utf-8"))
    except ET.ParseError:
        pass
    internal = set(re.findall(r"<!ENTITY\s+(\w[\w.-]*)", data))
    builtin = {"amp", "lt", "gt", "quot", "apos"}
    data = re.sub(r"&([A-Za-z][\w.-]*);",
                  lambda m: m.group(0) if m.group(1) in builtin | internal else _UNRESOLVED, data)
    try:
        return ET.fromstring(data.encode("utf-8"))
    except ET.ParseError:
        return None


def align_file(en_path, de_path):
    """-> list of (en, de) segment pairs, or None when the structures differ."""
    en_root, de_root = parse(en_path), parse(de_path)
    if en_root is None or de_root is None:
        return None
    es, ds = segments(en_root), segments(de_root)
    if [t for t, _ in es] != [t for t, _ in ds]:
        return None
    out = []
    for (_, e), (_, d) in zip(es, ds):
        if not e or not d or _UNRESOLVED in e or _UNRESOLVED in d:
            continue
        se, sd = split_sentences(e), split_sentences(d)
        if len(se) == len(sd) and len(se) > 1:
            out.extend(zip(se, sd))
        else:
            out.append((e, d))
    return out


def help_pairs(root):
    """All aligned pairs of one unpacked package, files in sorted order;
    -> (pairs, files aligned, files skipped)."""
    de_dir = os.path.join(root, "usr/share/help/de")
    files = []
    for dirpath, _, names in os.walk(de_dir):
        for n in names:
            if n.endswith((".page", ".xml", ".docbook")):
                files.append(os.path.relpath(os.path.join(dirpath, n), de_dir))
    out, ok, bad = [], 0, 0
    for rel in sorted(files):
        en_path = os.path.join(root, "usr/share/help/C", rel)
        if not os.path.isfile(en_path):
            bad += 1
            continue
        pairs = align_file(en_path, os.path.join(de_dir, rel))
        if pairs is None:
            bad += 1
            continue
        ok += 1
        out.extend(pairs)
    return out, ok, bad


def help_source(work, held_out):
    """-> (training pairs [(tag, en, de)], held-out pairs {pkg: [(en, de)]}, package table)."""
    sizes = package_sizes(work)
    pkgs = sorted({pkg for _, pkg in contents(work, _HELP_PATH) if pkg in sizes})
    log(f"help: {len(pkgs)} packages ({sum(sizes[p] for p in pkgs) / 1e6:.0f} MB), "
        f"{sum(p in held_out for p in pkgs)} held out")
    debs = download_debs(work, pkgs)
    train, held, table = [], {}, []
    for pkg in pkgs:
        if pkg not in debs:
            continue
        root = extract_members(debs[pkg], os.path.join(work, "pkgs-help", pkg), _PATTERNS)
        pairs, ok, bad = help_pairs(root)
        table.append({"package": pkg, "files_aligned": ok, "files_skipped": bad,
                      "pairs": len(pairs), "bytes": sizes.get(pkg, 0),
                      "held_out": pkg in held_out,
                      "licence": read_copyright_licenses(root, pkg)})
        if pkg in held_out:
            held[pkg] = pairs
        else:
            train.extend((f"help:{pkg}", e, d) for e, d in pairs)
    return train, held, table
