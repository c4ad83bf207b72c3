#!/usr/bin/python3
"""Tests for tools/data/placeholders.py (the same cases as tests/text/test_protect.cc, so the
corpus and s2s's protection find the same spans) and for what the catalog reader keeps.

Run from the repository root:
    /usr/bin/python3 -m unittest discover -s tools/data -p 'test_*.py'
"""
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from placeholders import find_patterns, placeholders, kept_share  # noqa: E402
import gettext_catalogs as gc  # noqa: E402


def found(text):
    return [text[b:e] for b, e, _ in find_patterns(text)]


class FindPatternsAsProtectCc(unittest.TestCase):
    """tests/text/test_protect.cc, "placeholders of every kind are found whole" and "ordinary
    text holds no pattern"."""

    def test_every_kind_found_whole(self):
        self.assertEqual(found("Error {0}: unable to connect to {1}."), ["{0}", "{1}"])
        self.assertEqual(found("Hello {name}, {day:d} {} {0!r}"),
                         ["{name}", "{day:d}", "{}", "{0!r}"])
        self.assertEqual(found("Could not open %s (%d, %1$s, %(count)d, %-5.2f, %lu, %'d, %%)"),
                         ["%s", "%d", "%1$s", "%(count)d", "%-5.2f", "%lu", "%'d", "%%"])
        self.assertEqual(found("Qt: %1 of %2"), ["%1", "%2"])
        self.assertEqual(found("Set $HOME and ${PATH}."), ["$HOME", "${PATH}"])
        self.assertEqual(found("Mail bugs@example.org or <robclark@freedesktop.org>."),
                         ["bugs@example.org", "robclark@freedesktop.org"])
        self.assertEqual(found("See https://example.org/a?b=c&d=1#x, or (http://x.org/wiki/A_(b))."),
                         ["https://example.org/a?b=c&d=1#x", "http://x.org/wiki/A_(b)"])
        self.assertEqual(found("Visit www.debian.org."), ["www.debian.org"])
        self.assertEqual(found("Edit /etc/apt/sources.list, ~/.config/x.yml, ./configure, "
                               "../a/b.txt."),
                         ["/etc/apt/sources.list", "~/.config/x.yml", "./configure", "../a/b.txt"])
        self.assertEqual(found("Copy C:\\Users\\Public\\report.doc now."),
                         ["C:\\Users\\Public\\report.doc"])

    def test_ordinary_text_holds_no_pattern(self):
        self.assertEqual(found("50% done, 100% sure."), [])
        self.assertEqual(found("It costs $5 and/or 1/2 of GNU/Linux (+/-)."), [])
        self.assertEqual(found("The key {is not closed and a } alone."), [])
        self.assertEqual(found("Press <b>Ctrl+S</b> to save."), [])

    def test_touching_spans(self):
        # test_protect.cc "touching spans share one stand-in": found as two placeholders.
        self.assertEqual(placeholders("in %(place)s%(notes)s."), ["%(place)s", "%(notes)s"])

    def test_kinds(self):
        kinds = [k for _, _, k in find_patterns("{0} a@b.org http://x.org /tmp/x")]
        self.assertEqual(kinds, ["placeholder", "email", "url", "path"])
        self.assertEqual(placeholders("{0} a@b.org http://x.org/%s /tmp/x"), ["{0}"])


class KeptShare(unittest.TestCase):
    def test_counts_lines_that_keep_every_placeholder_and_tag(self):
        src = ["Open %s in {dir}", "<b>%d</b> files", "Save {0}"]
        hyp = ["{dir} %s öffnen", "<b>%d Dateien", "{0 speichern"]
        self.assertEqual(kept_share(src, hyp), (2, 1, 3))


class CatalogMessages(unittest.TestCase):
    def test_placeholders_markup_entities_addresses_kept(self):
        self.assertEqual(gc.keep_message("Error {0}: unable to connect to {1}.",
                                         "Fehler {0}: Verbindung mit {1} nicht möglich."),
                         ("Error {0}: unable to connect to {1}.",
                          "Fehler {0}: Verbindung mit {1} nicht möglich."))
        self.assertEqual(gc.keep_message("<b>%s</b> &amp; %(count)d more",
                                         "<b>%s</b> &amp; %(count)d weitere"),
                         ("<b>%s</b> &amp; %(count)d more", "<b>%s</b> &amp; %(count)d weitere"))
        self.assertEqual(gc.keep_message("Report bugs to bugs@example.org.",
                                         "Fehler an bugs@example.org melden."),
                         ("Report bugs to bugs@example.org.", "Fehler an bugs@example.org melden."))
        self.assertEqual(gc.keep_message('See <a href="https://x.org">the site</a>.',
                                         'Siehe <a href="https://x.org">die Seite</a>.'),
                         ('See <a href="https://x.org">the site</a>.',
                          'Siehe <a href="https://x.org">die Seite</a>.'))

    def test_pair_with_different_placeholders_or_tags_dropped(self):
        self.assertIsNone(gc.keep_message("Copy %s to %s", "Kopiere %s"))
        self.assertIsNone(gc.keep_message("Open {file}", "Öffne {datei}"))
        self.assertIsNone(gc.keep_message("Open %1", "Öffne %2 %1"))
        self.assertIsNone(gc.keep_message("<b>Bold</b> text", "Fetter Text"))
        # Order may change; the same placeholders are kept.
        self.assertIsNotNone(gc.keep_message("%1 of %2", "%2 von %1"))

    def test_accelerators_go_but_not_inside_placeholders(self):
        self.assertEqual(gc.keep_message("_Open File", "Datei ö_ffnen"), ("Open File", "Datei öffnen"))
        self.assertEqual(gc.keep_message("&Save As", "Speichern &unter"), ("Save As", "Speichern unter"))
        self.assertEqual(gc.keep_message("~Print", "~Drucken"), ("Print", "Drucken"))
        self.assertEqual(gc.keep_message("_Open %(file_name)s", "%(file_name)s ö_ffnen"),
                         ("Open %(file_name)s", "%(file_name)s öffnen"))
        # Two underscores: an identifier, not an accelerator; entities are not accelerators.
        self.assertEqual(gc.keep_message("Set LD_LIBRARY_PATH now", "LD_LIBRARY_PATH jetzt setzen"),
                         ("Set LD_LIBRARY_PATH now", "LD_LIBRARY_PATH jetzt setzen"))
        self.assertEqual(gc.keep_message("Tom &amp; _Jerry", "Tom &amp; _Jerry und so"),
                         ("Tom &amp; Jerry", "Tom &amp; Jerry und so"))
        # Taking the mark out would make "%_something%" a placeholder ("%s"): not kept.
        self.assertIsNone(gc.keep_message("Use `%_something%` here", "`%_etwas%` hier benutzen"))

    def test_held_out_cleaning_unchanged(self):
        # test-msg of the third edition: placeholders, markup and entities out.
        self.assertEqual(gc.cleaned_pairs([("<b>_Open</b> the file", "Die Datei <b>_öffnen</b>"),
                                           ("Open %s", "%s öffnen")], strict=True),
                         [("Open the file", "Die Datei öffnen")])


if __name__ == "__main__":
    unittest.main()
