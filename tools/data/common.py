"""Helpers shared by the corpus builder's sources: apt in a scratch directory, text cleaning,
the pair filter, near-duplicate keys and a crude language check.

Everything here must stay deterministic: the build is rerun from scratch on fresh machines and
the held-out description sets must come out byte-identical to earlier builds.
"""
import glob
import os
import re
import subprocess
import sys
import unicodedata

MAX_WORDS = 80          # longer segments are rarely aligned well and slow training down
MAX_LEN_RATIO = 2.5     # character-length ratio beyond which a pair is most likely misaligned


def log(msg):
    print(msg, file=sys.stderr, flush=True)


# ------------------------------------------------------------------------------------------------
# apt in a scratch lists directory (nothing is installed; the system's lists are left alone)
# ------------------------------------------------------------------------------------------------
def apt_options(work):
    lists = os.path.join(work, "lists")
    os.makedirs(os.path.join(lists, "partial"), exist_ok=True)
    # The Contents-deb index target is what apt-file configures: with it `apt-get update` also
    # fetches Contents-{amd64,all}, the list of every file in every package, which is how the
    # gettext and help sources find the packages that carry German catalogs or help pages.
    return ["-o", "Acquire::Languages=en,de", "-o", f"Dir::State::Lists={lists}",
            "-o", "APT::Get::List-Cleanup=0",
            "-o", "Acquire::IndexTargets::deb::Contents-deb::MetaKey="
                  "$(COMPONENT)/Contents-$(ARCHITECTURE)",
            "-o", "Acquire::IndexTargets::deb::Contents-deb::ShortDescription="
                  "Contents-$(ARCHITECTURE)",
            "-o", "Acquire::IndexTargets::deb::Contents-deb::Description="
                  "$(RELEASE)/$(COMPONENT) $(ARCHITECTURE) Contents (deb)"]


def fetch_lists(work):
    lists = os.path.join(work, "lists")
    if (glob.glob(os.path.join(lists, "*Translation-de*"))
            and glob.glob(os.path.join(lists, "*_Contents-amd64*"))):
        return
    log("apt-get update (Packages, Contents, Translation-en, Translation-de) ...")
    subprocess.run(["apt-get", "update", "-qq"] + apt_options(work), check=True)


def apt_cat(path):
    """apt stores index files compressed (lz4 on Debian 12); apt-helper reads every variant."""
    out = subprocess.run(["/usr/lib/apt/apt-helper", "cat-file", path], check=True,
                         stdout=subprocess.PIPE).stdout
    return out.decode("utf-8", errors="replace")


def fetch_package(work, name):
    """Download and unpack one whole .deb into work/pkgs/<name>/ (once)."""
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


def download_debs(work, names, batch=50):
    """apt-get download many packages, a batch per call (one call per package costs seconds of
    apt start-up each).  A batch that fails is retried one package at a time, so that a single
    unavailable package only loses itself.  Returns {name: path of its .deb}."""
    debs = os.path.join(work, "debs")
    os.makedirs(debs, exist_ok=True)

    def have(name):
        found = sorted(glob.glob(os.path.join(debs, f"{name}_*.deb")))
        return found[-1] if found else None

    todo = [n for n in names if not have(n)]
    for i in range(0, len(todo), batch):
        chunk = todo[i:i + batch]
        log(f"apt-get download {len(chunk)} packages ({i + len(chunk)}/{len(todo)}) ...")
        r = subprocess.run(["apt-get", "download", "-qq"] + apt_options(work) + chunk, cwd=debs)
        if r.returncode != 0:
            for n in chunk:
                if not have(n):
                    subprocess.run(["apt-get", "download", "-qq"] + apt_options(work) + [n],
                                   cwd=debs)
    out = {}
    for n in names:
        path = have(n)
        if path:
            out[n] = path
        else:
            log(f"warning: could not download {n}; skipped")
    return out


def extract_members(deb, dest, patterns):
    """Unpack only the members of `deb` matching the tar wildcards into dest (once).  Keeps the
    work folder small: a package that carries 100 languages gives only its German and English
    files.  Patterns that match nothing are not an error."""
    if os.path.isdir(dest):
        return dest
    tmp = dest + ".tmp"
    os.makedirs(tmp, exist_ok=True)
    tar = subprocess.Popen(["dpkg-deb", "--fsys-tarfile", deb], stdout=subprocess.PIPE)
    subprocess.run(["tar", "-x", "-C", tmp, "--wildcards", "--no-same-owner"] + patterns,
                   stdin=tar.stdout, stderr=subprocess.DEVNULL)
    tar.stdout.close()
    if tar.wait() != 0:
        raise RuntimeError(f"dpkg-deb --fsys-tarfile {deb} failed")
    os.rename(tmp, dest)
    return dest


def package_sizes(work):
    """Package -> download size in bytes, from the scratch Packages indexes (newest wins)."""
    sizes = {}
    for path in sorted(glob.glob(os.path.join(work, "lists", "*_binary-amd64_Packages*"))):
        pkg = None
        for line in apt_cat(path).split("\n"):
            if line.startswith("Package: "):
                pkg = line.split()[1]
            elif line.startswith("Size: ") and pkg:
                sizes[pkg] = int(line.split()[1])
    return sizes


def contents(work, path_re):
    """Yield (path, package) for every file in the Contents indexes matching path_re."""
    rx = re.compile(path_re)
    for path in sorted(glob.glob(os.path.join(work, "lists", "*_Contents-*"))):
        for line in apt_cat(path).split("\n"):
            if not line or not rx.match(line):
                continue
            fpath, pkgs = line.rsplit(None, 1)
            for p in pkgs.split(","):
                yield fpath.strip(), p.split("/")[-1]


_LICENCE_PHRASES = [("GNU Lesser General Public License", "LGPL"),
                    ("GNU Library General Public License", "LGPL"),
                    ("GNU General Public License", "GPL"), ("GNU GPL", "GPL"),
                    ("GNU Free Documentation", "GFDL"),
                    ("Permission is granted to make and distribute verbatim copies",
                     "verbatim-copying permission notice"),
                    ("Mozilla Public License", "MPL"), ("Apache License", "Apache"),
                    ("Creative Commons", "CC"), ("Artistic License", "Artistic"),
                    ("BSD", "BSD"), ("Permission is hereby granted", "MIT/X11-style"),
                    ("public domain", "public domain")]


def read_copyright_licenses(root, pkg):
    """The licence names of a package's copyright file: the 'License: X' lines of a
    machine-readable (DEP-5) file, otherwise the licences its prose names (marked "text:").
    -data/-common packages often ship no copyright file of their own (their doc directory is a
    symlink to the main package's), which gives "no copyright file in the .deb"."""
    path = os.path.join(root, "usr/share/doc", pkg, "copyright")
    if not os.path.isfile(path):
        return "no copyright file in the .deb"
    with open(path, encoding="utf-8", errors="replace") as f:
        text = f.read()
    names = []
    for m in re.finditer(r"^License:\s*(\S.*)$", text, re.M):
        name = m.group(1).strip()
        # Old-style files put prose after "License:" ("This program is free software; ...").
        if len(name.split()) <= 6 and "free software" not in name and name not in names:
            names.append(name)
    if names:
        return ", ".join(names[:8])
    found = [short for phrase, short in _LICENCE_PHRASES if phrase.lower() in text.lower()]
    return "text: " + ", ".join(found) if found else "copyright file names no known licence"


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


def keep(en, de):
    """The training filter every source goes through (unchanged from the first corpus)."""
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


def near_key(s):
    """Near-duplicate key: lowercase, without digits, punctuation and spaces, so that
    "Open file %d..." and "open file 2" collide.  Used for the held-out overlap check."""
    s = unicodedata.normalize("NFKC", s).lower()
    return re.sub(r"[\W\d_]+", "", s)


# Debian has python3-langdetect, but it is slow on a million segments and random unless seeded;
# for "is the German side German" a stop-word count is enough: untranslated strings left in a
# catalog or help page are English sentences full of English function words.
_EN_STOP = set("the of and to is are be this that with for from you your it not can will an "
               "on by or which have has was were if when there these those into should would "
               "been being its than then only also any all".split())
_DE_STOP = set("der die das und ist sind nicht ein eine einen einem einer mit für von zu im "
               "den dem des auf sie es wird werden kann können wenn oder auch bei aus wie "
               "sich als noch nur dass über diese dieser dieses ihr ihre wurde".split())


def looks_english(s):
    words = re.findall(r"[a-zäöüß]+", s.lower())
    en = sum(w in _EN_STOP for w in words)
    de = sum(w in _DE_STOP for w in words)
    return en >= 2 and en > 2 * de


def looks_german(s):
    words = re.findall(r"[a-zäöüß]+", s.lower())
    en = sum(w in _EN_STOP for w in words)
    de = sum(w in _DE_STOP for w in words)
    return de >= 2 and de > 2 * en


def language_ok(en, de):
    """False when the pair is not English-German: the German side a copy of the English or
    English itself (untranslated), or the English side German (swapped or mislabelled)."""
    if not re.search(r"[A-Za-z]{2}", en) or near_key(en) == near_key(de):
        return False                                 # "5.3.4.", "%s: %s", or left untranslated
    return not looks_english(de) and not looks_german(en)
