#!/usr/bin/python3
"""Lone-sentence latency: one line at a time, each answered before the next is sent (bench/peers.sh).

    latency.py s2s BIN MODEL LINES --beam B [--precision P] [--threads 2] [S2S_ARGS...]
    latency.py ct2 CT2_MODEL SPM LINES --beam B [--precision P] [--threads 2] [--max-length N]

s2s: `s2s translate` reads the lines through a pipe and answers each as it comes (what a person
or a program piping into it sees). CTranslate2 has no such mode (ct2-translator flushes its output
at the end), so it is timed as its users call it one sentence at a time: the Python API's
translate_batch on one sentence, with SentencePiece encoding and decoding around it, inside one
process (no pipe). Each sentence is timed from sending (or calling) to its answer; the first
WARMUP lines are not counted. Prints one line: engine, sentences, p50, p90, p99 and mean in ms.
Needs ctranslate2 on PYTHONPATH for `ct2` (bench/README.md).
"""

import argparse
import statistics
import subprocess
import sys
import time

WARMUP = 3


def percentile(values, p):
    ordered = sorted(values)
    rank = max(0, min(len(ordered) - 1, round(p / 100 * (len(ordered) - 1))))
    return ordered[rank]


def time_s2s(args, lines):
    cmd = [args.target, "translate", "-m", args.model, "--beam-size", str(args.beam), "--threads",
           str(args.threads), "--precision", args.precision, "--quiet"] + args.extra
    proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
                            encoding="utf-8", bufsize=1)
    times = []
    try:
        for line in lines:
            start = time.perf_counter()
            proc.stdin.write(line + "\n")
            proc.stdin.flush()
            answer = proc.stdout.readline()
            times.append(time.perf_counter() - start)
            if not answer:
                sys.exit("latency.py: s2s ended early (exit %s)" % proc.poll())
    finally:
        proc.stdin.close()
        proc.wait()
    if proc.returncode != 0:
        sys.exit("latency.py: s2s exited with %d" % proc.returncode)
    return times


def time_ct2(args, lines):
    import ctranslate2
    import sentencepiece
    sp = sentencepiece.SentencePieceProcessor(model_file=args.model)
    translator = ctranslate2.Translator(args.target, device="cpu", compute_type=args.precision,
                                        intra_threads=args.threads, inter_threads=1)
    options = {"beam_size": args.beam, "length_penalty": 0, "disable_unk": True}
    if args.max_length:
        options["max_decoding_length"] = args.max_length
    times = []
    for line in lines:
        start = time.perf_counter()
        pieces = sp.encode(line, out_type=str)
        result = translator.translate_batch([pieces], **options)
        sp.decode(result[0].hypotheses[0])
        times.append(time.perf_counter() - start)
    return times


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("engine", choices=["s2s", "ct2"])
    parser.add_argument("target", help="s2s: the s2s binary; ct2: the CTranslate2 model folder")
    parser.add_argument("model", help="s2s: the model folder; ct2: the source SentencePiece model")
    parser.add_argument("lines", help="sentences, one per line")
    parser.add_argument("--beam", type=int, default=1)
    parser.add_argument("--precision", default="float32")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--max-length", type=int, default=0, help="ct2: max_decoding_length")
    parser.add_argument("--label", default="")
    args, args.extra = parser.parse_known_args()
    with open(args.lines, encoding="utf-8") as fh:
        lines = [line for line in fh.read().splitlines() if line.strip()]
    if len(lines) <= WARMUP:
        sys.exit("latency.py: need more than %d lines" % WARMUP)
    times = (time_s2s if args.engine == "s2s" else time_ct2)(args, lines)[WARMUP:]
    ms = [t * 1000 for t in times]
    print("%-24s %-4s %5d sentences  p50 %8.1f  p90 %8.1f  p99 %8.1f  mean %8.1f ms" % (
        args.label or args.engine, args.engine, len(ms), percentile(ms, 50), percentile(ms, 90),
        percentile(ms, 99), statistics.mean(ms)))


if __name__ == "__main__":
    main()
