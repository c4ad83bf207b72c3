"""The Python module against the s2s command on the shipped model: the same texts, scores,
n-best lists and alignments; two threads at once; Ctrl-C; bad arguments."""

import json
import os
import signal
import subprocess
import sys
import textwrap
import threading
import time

import pytest

import s2s

REPO = os.environ["S2S_REPO"]
BINARY = os.environ["S2S_BINARY"]
MODEL = os.path.join(REPO, "models", "en-de")
LINES = ["The licence is free.", "", "The file was not found.", "Click the button to save."]


@pytest.fixture(scope="module")
def translator():
    return s2s.Translator(MODEL, intra_threads=1)


def cli(*args, text):
    done = subprocess.run([BINARY, *args, "-m", MODEL, "--threads", "1"], input=text,
                          capture_output=True, text=True, check=True)
    return [json.loads(line) for line in done.stdout.splitlines()]


def test_texts_scores_and_n_best_equal_the_cli(translator):
    records = cli("translate", "-b", "4", "--n-best", "--format", "jsonl",
                  text="\n".join(LINES) + "\n")
    results = translator.translate_batch(LINES, beam_size=4, num_hypotheses=4,
                                         return_scores=True)
    assert len(results) == len(LINES)
    assert results[1].hypotheses == []
    for record, result in zip(records, results):
        if not record["translation"]:
            continue
        best = record["n_best"][:4]
        assert result.hypotheses == [h["translation"] for h in best]
        assert result.scores == pytest.approx([h["score"] for h in best], abs=1e-4)
        assert result.tokens[0] == record["tokens"]


def test_alignment_equals_the_cli(translator):
    records = cli("translate", "-b", "4", "--alignment", "--format", "jsonl",
                  text="\n".join(LINES) + "\n")
    results = translator.translate_batch(LINES, beam_size=4, return_alignment=True)
    for record, result in zip(records, results):
        if not record["translation"]:
            continue
        assert [list(p) for p in result.alignment[0]] == record["piece_alignment"]
        assert [list(p) for p in result.word_alignment[0]] == record["alignment"]
        assert [[list(s), list(t)] for s, t in result.word_spans[0]] == record["alignment_spans"]


def test_score_batch_equals_the_cli(translator):
    pairs = [("The licence is free.", "Die Lizenz ist frei."), ("Hello.", "Hallo.")]
    records = cli("score", "--format", "jsonl", text="".join(f"{s}\t{t}\n" for s, t in pairs))
    results = translator.score_batch([s for s, _ in pairs], [t for _, t in pairs])
    for record, result in zip(records, results):
        assert result.score == pytest.approx(record["score"], abs=1e-4)
        assert result.tokens == record["tokens"]
        assert result.log_probs == pytest.approx(record["token_scores"], abs=1e-4)


def test_pieces_in_text_out_and_iterables(translator):
    pieces = ["\u2581The", "\u2581licen", "ce", "\u2581is", "\u2581free", "."]
    from_text = translator.translate_batch([LINES[0]])[0].hypotheses
    assert translator.translate_batch([pieces])[0].hypotheses == from_text
    streamed = list(translator.translate_iterable(iter(LINES * 3), max_batch_size=5))
    assert [r.hypotheses for r in streamed] == [r.hypotheses for r in
                                                translator.translate_batch(LINES * 3)]


def test_translate_file_and_generate_tokens(translator, tmp_path):
    source = tmp_path / "in.txt"
    source.write_text("\n".join(LINES) + "\n")
    out = tmp_path / "out.txt"
    assert translator.translate_file(str(source), str(out)) == len(LINES)
    expected = [r.hypotheses[0] if r.hypotheses else "" for r in translator.translate_batch(LINES)]
    assert out.read_text().splitlines() == expected
    steps = list(translator.generate_tokens(LINES[0]))
    greedy = translator.translate_batch([LINES[0]], beam_size=1)[0]
    assert [s.token for s in steps] == greedy.tokens[0]
    assert steps[-1].is_last
    # Lazy: the first step arrives before the search ends, and closing the iterator stops it.
    stream = translator.generate_tokens(LINES[0])
    first = next(stream)
    assert first.token == greedy.tokens[0][0] and first.step == 0
    stream.close()
    # The callback form returns the result.
    heard = []
    result = translator.generate_tokens(LINES[0], lambda step: heard.append(step.token) or True)
    assert heard == greedy.tokens[0]
    assert result.hypotheses == greedy.hypotheses


def test_two_threads_translate_at_once(translator):
    expected = [r.hypotheses for r in translator.translate_batch(LINES * 4)]
    got = [None, None]

    def work(i):
        got[i] = [r.hypotheses for r in translator.translate_batch(LINES * 4)]

    threads = [threading.Thread(target=work, args=(i,)) for i in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert got == [expected, expected]


def test_ctrl_c_interrupts_a_long_call():
    program = textwrap.dedent(f"""
        import sys, time, s2s
        t = s2s.Translator({MODEL!r}, intra_threads=1)
        lines = ["The licence number %d is free and the file was not found." % i
                 for i in range(20000)]
        print("ready", flush=True)
        start = time.time()
        try:
            t.translate_batch(lines, beam_size=4)
        except KeyboardInterrupt:
            print("interrupted after %.2f s" % (time.time() - start), flush=True)
            sys.exit(3)
        sys.exit(0)
    """)
    child = subprocess.Popen([sys.executable, "-c", program], stdout=subprocess.PIPE, text=True,
                             env=os.environ)
    assert child.stdout.readline().strip() == "ready"
    time.sleep(1.5)
    sent = time.time()
    child.send_signal(signal.SIGINT)
    out, _ = child.communicate(timeout=60)
    assert child.returncode == 3, out
    assert "interrupted" in out
    assert time.time() - sent < 5  # within a decoder step, plus the process's exit


def test_bad_arguments_are_python_errors_with_s2s_messages(translator):
    with pytest.raises(ValueError, match="num_hypotheses 5 is more than beam_size 4"):
        translator.translate_batch(LINES, beam_size=4, num_hypotheses=5)
    with pytest.raises(s2s.UsageError):
        translator.translate_batch(LINES, settings={"beam-size": "zero"})
    with pytest.raises(ValueError, match="compute_type 'float8'"):
        s2s.Translator(MODEL, compute_type="float8")
    with pytest.raises(s2s.ModelError, match="nowhere"):
        s2s.Translator("/nowhere")
    with pytest.raises(ValueError, match="2 sources for 1 targets"):
        translator.score_batch(["a", "b"], ["c"])
    with pytest.raises(TypeError):
        translator.translate_batch(LINES, beam_size="four")


def test_error_kinds():
    assert issubclass(s2s.UsageError, s2s.Error) and issubclass(s2s.UsageError, ValueError)
    assert issubclass(s2s.InputError, ValueError)
    assert issubclass(s2s.ModelError, s2s.Error) and issubclass(s2s.Error, RuntimeError)
