#!/usr/bin/python3
"""Figures for docs/real-text.md: chrF of the suites' translations with and without protection
(and with --html), overall and per kind, and how many spans come back exactly once.

    /usr/bin/python3 tools/real_text/evaluate.py --driver build/tests/real_text_driver

The suites are tab-separated: kind, English source, German reference, origin
(tests/data/text/software-strings.tsv, software-markup.tsv).
"""
import argparse
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, 'tools', 'eval'))
import metrics  # noqa: E402


def run(driver, model, mode, lines):
    out = subprocess.run([driver, model, mode], input='\n'.join(lines) + '\n', text=True,
                         capture_output=True, check=mode.startswith('check') is False)
    return out.stdout


def chrf(hyps, refs):
    return metrics.corpus_chrf(hyps, [refs])


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--driver', default=os.path.join(ROOT, 'build/tests/real_text_driver'))
    parser.add_argument('--model', default=os.path.join(ROOT, 'models/en-de'))
    args = parser.parse_args()
    data = os.path.join(ROOT, 'tests/data/text')

    rows = [l.rstrip('\n').split('\t') for l in open(os.path.join(data, 'software-strings.tsv'),
                                                     encoding='utf-8')]
    sources = [r[1] for r in rows]
    refs = [r[2] for r in rows]
    plain = run(args.driver, args.model, 'plain', sources).splitlines()
    protect = run(args.driver, args.model, 'protect', sources).splitlines()
    print('software-strings.tsv: %d strings' % len(rows))
    print('  chrF2 overall: without protection %.2f, with %.2f' % (chrf(plain, refs), chrf(protect, refs)))
    for kind in sorted({r[0] for r in rows}):
        idx = [i for i, r in enumerate(rows) if r[0] == kind]
        print('  %-7s %3d strings: chrF2 %.2f -> %.2f' % (
            kind, len(idx), chrf([plain[i] for i in idx], [refs[i] for i in idx]),
            chrf([protect[i] for i in idx], [refs[i] for i in idx])))
    # Strings whose spans the model spells: no '{', '}', '<', '>', '@', '\\', '^', '~' in the source.
    spelled = [i for i, s in enumerate(sources) if not re.search(r'[{}<>@\\^~]', s)]
    print('  spelled by the model (%d strings): chrF2 %.2f -> %.2f' % (
        len(spelled), chrf([plain[i] for i in spelled], [refs[i] for i in spelled]),
        chrf([protect[i] for i in spelled], [refs[i] for i in spelled])))
    lines = ['\t'.join(r) for r in rows]
    print('  kept, without protection: ' + run(args.driver, args.model, 'check-plain', lines).splitlines()[-1])
    print('  kept, with protection:    ' + run(args.driver, args.model, 'check', lines).splitlines()[-1])

    rows = [l.rstrip('\n').split('\t') for l in open(os.path.join(data, 'software-markup.tsv'),
                                                     encoding='utf-8')]
    sources = [r[1] for r in rows]
    refs = [r[2] for r in rows]
    lines = ['\t'.join(r) for r in rows]
    print('software-markup.tsv: %d strings' % len(rows))
    plain = run(args.driver, args.model, 'protect', sources).splitlines()
    html = run(args.driver, args.model, 'html', sources).splitlines()
    print('  chrF2: as text %.2f, --html %.2f' % (chrf(plain, refs), chrf(html, refs)))
    print('  kept, as text (tags unprotected but where unspellable): ' +
          run(args.driver, args.model, 'check', lines).splitlines()[-1])
    print('  kept, --html: ' + run(args.driver, args.model, 'check-html', lines).splitlines()[-1])


if __name__ == '__main__':
    main()
