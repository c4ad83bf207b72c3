"""Debian's translated manuals (HTML) aligned block by block with their English.

All of these are generated from one source per language by the same tool chain (DocBook through
po4a or publican, LibreOffice's .xhp through XSLT), so a German page that is a full translation
has the English page's block structure.  Two ways to pair blocks:
  * "sequence": the n-th innermost block (p, h1-h6, li, dt, dd, td, th, caption) of the English
    page with the n-th of the German page, only when both pages have the same sequence of block
    tags (otherwise the page is skipped whole and counted);
  * "id": LibreOffice's help gives every paragraph the id of its .xhp source (par_id3150040...),
    the same in every language, so blocks are paired by id and pages need not match whole.
Paragraphs are cut into sentences when both sides cut into the same number.
"""
import glob
import html.parser
import os

from common import (log, package_sizes, download_debs, extract_members, read_copyright_licenses,
                    normalize, split_sentences)

# name, English package, German package, English files (glob in its package), how the German
# file's path is made from the English one's, pairing.
DOC_SETS = [
    ("debian-reference", "debian-reference-en", "debian-reference-de",
     "usr/share/debian-reference/*.en.html", (".en.html", ".de.html"), "sequence"),
    ("debian-faq", "debian-faq", "debian-faq-de",
     "usr/share/doc/debian/FAQ/*.en.html", ("FAQ/", "FAQ/de/", ".en.html", ".de.html"),
     "sequence"),
    ("maint-guide", "maint-guide", "maint-guide-de",
     "usr/share/doc/maint-guide/html/*.en.html",
     ("maint-guide/", "maint-guide-de/", ".en.html", ".de.html"), "sequence"),
    ("installation-guide", "installation-guide-amd64", "installation-guide-amd64",
     "usr/share/doc/installation-guide-amd64/en/*.html", ("/en/", "/de/"), "sequence"),
    ("debian-handbook", "debian-handbook", "debian-handbook",
     "usr/share/doc/debian-handbook/html/en-US/*.html", ("/en-US/", "/de-DE/"), "sequence"),
    ("developers-reference", "developers-reference", "developers-reference-de",
     "usr/share/developers-reference/*.html",
     ("/developers-reference/", "/developers-reference/de/"), "sequence"),
    ("libreoffice-help", "libreoffice-help-en-us", "libreoffice-help-de",
     "usr/share/libreoffice/help/en-US/text/**/*.html", ("/en-US/", "/de/"), "id"),
]
_BLOCKS = {"p", "h1", "h2", "h3", "h4", "h5", "h6", "li", "dt", "dd", "td", "th", "caption"}
# Inline code stays (it is part of the sentence); code blocks, scripts and page chrome go.
_SKIP = {"script", "style", "pre", "head", "noscript", "header", "aside", "textarea", "select"}
_VOID = {"br", "img", "hr", "meta", "link", "input", "col", "area", "base", "wbr", "source"}
_PATTERNS = {"debian-handbook": ["./usr/share/doc/debian-handbook/html/en-US/*.html",
                                 "./usr/share/doc/debian-handbook/html/de-DE/*.html",
                                 "./usr/share/doc/*/copyright"],
             "installation-guide": ["./usr/share/doc/installation-guide-amd64/en/*",
                                    "./usr/share/doc/installation-guide-amd64/de/*",
                                    "./usr/share/doc/*/copyright"]}


class _Blocks(html.parser.HTMLParser):
    """Collects (tag, id, text) of innermost blocks.  Text inside skipped or hidden elements
    (LibreOffice keeps the macOS variant of each menu path in a hidden span) is left out."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.stack = []          # [tag, id, text parts, has inner block, hidden]
        self.skip = 0
        self.out = []

    def handle_starttag(self, tag, attrs):
        if tag in _VOID:
            if tag == "br" and self.stack:
                self.stack[-1][2].append(" ")
            return
        a = dict(attrs)
        # LibreOffice's "switchinline" spans hold one hidden variant per system (MAC..., WIN...,
        # default...) of which help.js shows one; the default one is the text to keep.
        hidden = (tag in _SKIP or ("hidden" in a and not (a.get("id") or "").startswith("default"))
                  or bool(self.stack and self.stack[-1][4]))
        self.stack.append([tag, a.get("id"), [], False, hidden])

    def handle_endtag(self, tag):
        if tag in _VOID:
            return
        # Close up to the matching tag (HTML leaves p and li unclosed at times); a stray end
        # tag with no open element of its name is ignored.
        if not any(s[0] == tag for s in self.stack):
            return
        while self.stack:
            t, eid, parts, inner, hidden = self.stack.pop()
            text = "".join(parts)
            if t in _BLOCKS and not hidden:
                if not inner:
                    self.out.append((t, eid, normalize(text)))
                for s in self.stack:
                    s[3] = True
            elif self.stack and not hidden:
                self.stack[-1][2].append(text)
            if t == tag:
                break

    def handle_data(self, data):
        if self.stack and not self.stack[-1][4]:
            self.stack[-1][2].append(data)


def blocks(path):
    p = _Blocks()
    with open(path, encoding="utf-8", errors="replace") as f:
        p.feed(f.read())
    p.close()
    return p.out


def _split(e, d):
    se, sd = split_sentences(e), split_sentences(d)
    if len(se) == len(sd) and len(se) > 1:
        return list(zip(se, sd))
    return [(e, d)]


def align_pages(en_path, de_path, mode):
    """-> list of (en, de), or None when the pages do not align."""
    eb, db = blocks(en_path), blocks(de_path)
    out = []
    if mode == "id":
        de_by_id = {}
        for t, i, s in db:
            if i:
                de_by_id.setdefault(i, []).append((t, s))
        pairs = []
        for t, i, s in eb:
            if i and len(de_by_id.get(i, [])) == 1 and de_by_id[i][0][0] == t:
                pairs.append((s, de_by_id[i][0][1]))
        if not pairs:
            return None
    else:
        if [t for t, _, _ in eb] != [t for t, _, _ in db] or not eb:
            return None
        pairs = [(e, d) for (_, _, e), (_, _, d) in zip(eb, db)]
    for e, d in pairs:
        if e and d:
            out.extend(_split(e, d))
    return out


def _de_path(rel, subst):
    for a, b in zip(subst[::2], subst[1::2]):
        rel = rel.replace(a, b)
    return rel


def manual_source(work):
    """-> (training pairs [(tag, en, de)], table of the manuals)."""
    sizes = package_sizes(work)
    pkgs = sorted({p for s in DOC_SETS for p in (s[1], s[2]) if p in sizes})
    log(f"manuals: {len(pkgs)} packages ({sum(sizes[p] for p in pkgs) / 1e6:.0f} MB)")
    debs = download_debs(work, pkgs)
    roots = {}
    for name, en_pkg, de_pkg, *_ in DOC_SETS:
        pats = _PATTERNS.get(name, ["./usr/share/*"])
        for p in (en_pkg, de_pkg):
            if p in debs and p not in roots:
                roots[p] = extract_members(debs[p], os.path.join(work, "pkgs-doc", p), pats)
    out, table = [], []
    for name, en_pkg, de_pkg, pattern, subst, mode in DOC_SETS:
        if en_pkg not in roots or de_pkg not in roots:
            continue
        ok = bad = n0 = 0
        n0 = len(out)
        for en_path in sorted(glob.glob(os.path.join(roots[en_pkg], pattern), recursive=True)):
            rel = os.path.relpath(en_path, roots[en_pkg])
            de_path = os.path.join(roots[de_pkg], _de_path(rel, subst))
            pairs = align_pages(en_path, de_path, mode) if os.path.isfile(de_path) else None
            if pairs is None:
                bad += 1
                continue
            ok += 1
            out.extend((f"manual:{name}", e, d) for e, d in pairs)
        table.append({"manual": name, "packages": sorted({en_pkg, de_pkg}),
                      "pages_aligned": ok, "pages_skipped": bad, "pairs": len(out) - n0,
                      "bytes": sum(sizes.get(p, 0) for p in {en_pkg, de_pkg}),
                      "licence": read_copyright_licenses(roots[de_pkg], de_pkg)})
        log(f"manual {name}: {len(out) - n0} pairs, {ok} pages aligned, {bad} skipped")
    return out, table
