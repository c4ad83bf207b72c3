"""The spans s2s protects in a sentence (lib/s2s/text/protect.cc, find_patterns), in Python.

The corpus keeps a catalog message only when its source and translation hold the same
placeholders, by the same rules s2s uses at translation time to find them: what the model is
taught to copy is what the translator's protection will hand it.  The rules are protect.cc's,
function for function (match_url, match_email, match_brace, match_printf, match_shell,
match_path, tried in that order at each position); test_placeholders.py checks them against the
cases of tests/text/test_protect.cc.  ASCII classes only, as in protect.cc.

Usage:
    find_patterns("Error {0}: see /tmp/x")   # [(6, 9, "placeholder"), (15, 21, "path")]
    placeholders("Copy %s to {dir}.")        # ["%s", "{dir}"]
    /usr/bin/python3 tools/data/placeholders.py SOURCE HYPOTHESES
        # the share of lines whose translation keeps every placeholder (count and form), and
        # every placeholder and tag, of its source line (the test-ph measure of issue 43)
"""
import re
import sys


def _alpha(c):
    return ("a" <= c <= "z") or ("A" <= c <= "Z")


def _digit(c):
    return "0" <= c <= "9"


def _alnum(c):
    return _alpha(c) or _digit(c)


def _space(c):
    return c == " " or "\t" <= c <= "\r"


def _name(c):
    return _alnum(c) or c == "_"


def _in(c, chars):
    return c != "" and c in chars


def _at(s, i):
    return s[i] if 0 <= i < len(s) else ""


def _word_before(s, i):
    return i > 0 and (_alnum(s[i - 1]) or s[i - 1] == "_")


def _skip(s, i, ok):
    while i < len(s) and ok(s[i]):
        i += 1
    return i


def _trim_trailing(s, begin, end):
    """Trailing characters that end the sentence rather than the URL or path."""
    while end > begin and _in(s[end - 1], ".,;:!?'\""):
        end -= 1
    while end > begin and s[end - 1] in ")]":
        opener = "(" if s[end - 1] == ")" else "["
        part = s[begin:end]
        if part.count(opener) >= part.count(s[end - 1]):
            break
        end -= 1
        while end > begin and _in(s[end - 1], ".,;:!?'\""):
            end -= 1
    return end


def _url_char(c):
    return not _space(c) and not _in(c, "<>\"'`") and ord(c) >= 0x21


def match_url(s, i):
    if _word_before(s, i) or not _alpha(s[i]):
        return 0
    if s.startswith("www.", i):
        j = i + 4
    else:
        j = _skip(s, i, lambda c: _alnum(c) or _in(c, "+.-"))
        if not s.startswith("://", j):
            return 0
        j += 3
    rest = j
    j = _trim_trailing(s, i, _skip(s, j, _url_char))
    return j - i if j > rest else 0


def _local_char(c):
    return _alnum(c) or _in(c, "._%+-")


def _domain_char(c):
    return _alnum(c) or c in "-."


def match_email(s, i):
    if i > 0 and _local_char(s[i - 1]):
        return 0
    if not _alnum(s[i]):
        return 0
    at = _skip(s, i, _local_char)
    if at >= len(s) or s[at] != "@" or at + 1 >= len(s) or not _alnum(s[at + 1]):
        return 0
    end = _skip(s, at + 1, _domain_char)
    while end > at + 1 and s[end - 1] in ".-":
        end -= 1
    return end - i


def match_brace(s, i):
    """{0}, {name}, {}, {0.attr}, {name!r}, {day:d}, {:>10}"""
    if s[i] != "{":
        return 0
    j = _skip(s, i + 1, lambda c: _name(c) or _in(c, ".[]"))
    if j + 1 < len(s) and s[j] == "!" and _in(s[j + 1], "rsa"):
        j += 2
    if j < len(s) and s[j] == ":":
        j = _skip(s, j + 1, lambda c: not _space(c) and c not in "{}")
    return j + 1 - i if j < len(s) and s[j] == "}" else 0


def match_printf(s, i):
    """%%, %s, %d, %1$s, %(count)d, %-10.3f, %lu, %'d, %m, Qt's %1"""
    if s[i] != "%" or i + 1 >= len(s):
        return 0
    if s[i + 1] == "%":
        return 2
    j = i + 1
    digits = _skip(s, j, _digit)
    if digits > j and digits < len(s) and s[digits] == "$":
        j = digits + 1
    elif digits > j and (digits >= len(s) or not _alnum(s[digits])):
        return digits - i
    if j < len(s) and s[j] == "(":
        close = _skip(s, j + 1, _name)
        if close == j + 1 or close >= len(s) or s[close] != ")":
            return 0
        j = close + 1
    j = _skip(s, j, lambda c: _in(c, "-+#0'"))
    j = _skip(s, j, lambda c: _digit(c) or c == "*")
    if j < len(s) and s[j] == ".":
        j = _skip(s, j + 1, lambda c: _digit(c) or c == "*")
    j = _skip(s, j, lambda c: _in(c, "hlLqjzt"))
    if j >= len(s) or not _in(s[j], "diouxXeEfFgGaAcspnm@"):
        return 0
    return j + 1 - i


def match_shell(s, i):
    """$HOME, ${PATH}"""
    if s[i] != "$" or i + 1 >= len(s) or _word_before(s, i):
        return 0
    if s[i + 1] == "{":
        close = _skip(s, i + 2, _name)
        ok = close > i + 2 and close < len(s) and s[close] == "}" and not _digit(s[i + 2])
        return close + 1 - i if ok else 0
    if not _alpha(s[i + 1]) and s[i + 1] != "_":
        return 0
    return _skip(s, i + 1, _name) - i


def _path_char(c):
    return _alnum(c) or _in(c, "._+-~@%,=") or ord(c) >= 0x80


def match_path(s, i):
    """/etc/fstab, ~/.config/x, ./configure, ../data/x, C:\\Users\\x"""
    if i > 0 and (_alnum(s[i - 1]) or _in(s[i - 1], "/\\<_.~:")):
        return 0
    j = i
    if _alpha(s[i]) and s.startswith(":\\", i + 1):
        j = _skip(s, i + 3, lambda c: _path_char(c) or c == "\\")
        end = _trim_trailing(s, i, j)
        return end - i if end > i + 3 else 0
    if s.startswith("~/", i) or s.startswith("./", i):
        j = i + 1
    elif s.startswith("../", i):
        j = i + 2
    if j >= len(s) or s[j] != "/":
        return 0
    nxt = _at(s, j + 1)
    if not nxt or not (_alnum(nxt) or nxt in "._"):
        return 0
    end = j
    while end < len(s) and s[end] == "/":
        end = _skip(s, end + 1, _path_char)
    return _trim_trailing(s, i, end) - i


# URLs before e-mail addresses ("https://user@host/") and paths ("http://a/b").
_MATCHERS = [(match_url, "url"), (match_email, "email"), (match_brace, "placeholder"),
             (match_printf, "placeholder"), (match_shell, "placeholder"), (match_path, "path")]


def _possible_matchers(s):
    """The matchers that can match somewhere in s, by the character each one needs: most
    catalog messages need none, and trying six matchers at every character of a million
    messages in Python takes an hour."""
    need = {match_url: "://" in s or "www." in s, match_email: "@" in s, match_brace: "{" in s,
            match_printf: "%" in s, match_shell: "$" in s, match_path: "/" in s or ":\\" in s}
    return [(m, kind) for m, kind in _MATCHERS if need[m]]


def find_patterns(s):
    """-> [(begin, end, kind)] in order, kind one of placeholder, email, url, path."""
    matchers = _possible_matchers(s)
    if not matchers:
        return []
    spans, i = [], 0
    while i < len(s):
        for match, kind in matchers:
            n = match(s, i)
            if n > 0:
                spans.append((i, i + n, kind))
                i += n
                break
        else:
            i += 1
    return spans


def placeholders(s):
    """The placeholder texts of s, in order."""
    return [s[b:e] for b, e, kind in find_patterns(s) if kind == "placeholder"]


# Markup tags (HTML, Pango, GTK), which the corpus keeps as the catalogs have them.
TAG = re.compile(r"</?[A-Za-z][\w:-]*(?:\s[^<>]*)?/?>")


def kept_share(sources, hypotheses):
    """(lines keeping every placeholder, lines keeping every placeholder and tag, lines)."""
    same_ph = same_all = 0
    for src, hyp in zip(sources, hypotheses):
        ph = sorted(placeholders(src)) == sorted(placeholders(hyp))
        same_ph += ph
        same_all += ph and sorted(TAG.findall(src)) == sorted(TAG.findall(hyp))
    return same_ph, same_all, len(sources)


def main(argv):
    if len(argv) != 3:
        sys.exit("usage: placeholders.py SOURCE HYPOTHESES")
    lines = [open(path, encoding="utf-8").read().splitlines() for path in argv[1:]]
    if len(lines[0]) != len(lines[1]):
        sys.exit(f"{argv[2]}: {len(lines[1])} lines, {argv[1]} has {len(lines[0])}")
    ph, both, n = kept_share(*lines)
    print(f"{ph} of {n} lines keep every placeholder ({100 * ph / max(1, n):.1f} %), "
          f"{both} every placeholder and tag ({100 * both / max(1, n):.1f} %)")


if __name__ == "__main__":
    main(sys.argv)
