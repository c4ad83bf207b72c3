#!/usr/bin/python3
"""tools/docs/check_links.py [ROOT]: every relative link in README.md and docs/*.md points at an
existing file (and, with a #fragment into a Markdown file, at one of its headings), and every
file under docs/ that a comment or text in the source tree names exists, with the section it
names (`docs/models.md, "Vocabularies"` or `docs/models.md ("Vocabularies")`) among its headings. Prints each broken one as
FILE:LINE: what is wrong, exits 1 if there is any. Run by CTest (docs_links)."""

import pathlib
import re
import sys

LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")
DOC_MENTION = re.compile(r"\bdocs/[A-Za-z0-9_-]+\.md\b")
# A docs/ file and a section of it, as comments cite them; comment markers between lines removed.
SECTION_MENTION = re.compile(r"\b(docs/[A-Za-z0-9_-]+\.md)(?:, | \()\"([^\"]+)\"")
COMMENT_BREAK = re.compile(r"\n[ \t]*(?://|#)[ \t]?")
SOURCE_FOLDERS = ["lib", "app", "tests", "tools", "bench", "python", "examples", ".ci"]
SOURCE_SUFFIXES = {".cc", ".h", ".py", ".sh", ".txt", ".md", ".yml", ".cmake", ""}


def slug(heading):
    """The anchor GitHub gives a heading: lower case, punctuation dropped, spaces to hyphens."""
    text = re.sub(r"[`*_]", "", heading.strip().lower())
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def headings(markdown_file):
    in_code = False
    found = set()
    for line in markdown_file.read_text(encoding="utf-8").splitlines():
        if line.startswith("```"):
            in_code = not in_code
        elif not in_code and line.startswith("#"):
            found.add(line.lstrip("#").strip().replace("`", ""))
    return found


def anchors(markdown_file):
    return {slug(heading) for heading in headings(markdown_file)}


def broken_links(markdown_file):
    in_code = False
    for number, line in enumerate(markdown_file.read_text(encoding="utf-8").splitlines(), 1):
        if line.startswith("```"):
            in_code = not in_code
            continue
        if in_code:
            continue
        for target in LINK.findall(line):
            if re.match(r"^[a-z]+:", target):  # http:, https:, mailto:
                continue
            path, _, fragment = target.partition("#")
            file = (markdown_file.parent / path).resolve() if path else markdown_file
            if not file.exists():
                yield number, f"{target}: no such file"
            elif fragment and file.suffix == ".md" and fragment not in anchors(file):
                yield number, f"{target}: no heading #{fragment} in {file.name}"


def broken_mentions(root):
    for folder in SOURCE_FOLDERS:
        for file in sorted((root / folder).rglob("*")):
            if not file.is_file() or file.suffix not in SOURCE_SUFFIXES or "data" in file.relative_to(root).parts:
                continue
            try:
                text = file.read_text(encoding="utf-8")
            except UnicodeDecodeError:
                continue
            for number, line in enumerate(text.splitlines(), 1):
                for mention in DOC_MENTION.findall(line):
                    if not (root / mention).exists():
                        yield file, number, f"{mention}: no such file"
            for match in SECTION_MENTION.finditer(COMMENT_BREAK.sub(" ", text)):
                doc, section = root / match[1], " ".join(match[2].split())
                if doc.exists() and section not in headings(doc):
                    yield file, 0, f'{match[1]} has no section "{section}"'


def main():
    root = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else pathlib.Path(__file__).parents[2])
    problems = []
    for markdown_file in [root / "README.md", *sorted((root / "docs").glob("*.md"))]:
        for number, what in broken_links(markdown_file):
            problems.append(f"{markdown_file.relative_to(root)}:{number}: {what}")
    for file, number, what in broken_mentions(root):
        where = f"{file.relative_to(root)}:{number}" if number else str(file.relative_to(root))
        problems.append(f"{where}: {what}")
    for problem in problems:
        print(problem)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
