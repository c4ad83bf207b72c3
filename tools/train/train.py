#!/usr/bin/python3
"""Train s2s's default English->German model (see README.md next to this file).

Runs on Debian's python3-torch with OpenBLAS (run.sh selects it); resumable: every checkpoint
holds the model, the optimiser, the data position and the step, and a restart continues from the
newest one.  Writes into --work (the corpus directory of tools/data/build_corpus.py):
  spm.model          joint SentencePiece model (Marian ids: </s>=0, <unk>=1, no <s>)
  ids.npz            the encoded corpus
  ckpt/step-N.pt     checkpoints; train.log  progress, dev loss and dev chrF
"""
import argparse
import glob
import io
import json
import math
import os
import random
import sys
import time

import numpy as np
import sentencepiece as spm
import torch
import torch.nn.functional as Fn

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "eval"))
from model import MarianTransformer  # noqa: E402

EOS, UNK = 0, 1


def log(work, msg):
    line = time.strftime("%H:%M:%S ") + msg
    print(line, flush=True)
    with open(os.path.join(work, "train.log"), "a") as f:
        f.write(line + "\n")


def read_lines(path):
    with open(path, encoding="utf-8") as f:
        return [l.rstrip("\n") for l in f]


def train_spm(work, vocab_size):
    path = os.path.join(work, "spm.model")
    if os.path.exists(path):
        return spm.SentencePieceProcessor(model_file=path)
    lines = read_lines(os.path.join(work, "train.en")) + read_lines(os.path.join(work, "train.de"))
    buf = io.BytesIO()
    spm.SentencePieceTrainer.train(
        sentence_iterator=iter(lines), model_writer=buf, model_type="unigram",
        vocab_size=vocab_size, character_coverage=0.9999, bos_id=-1, eos_id=EOS, unk_id=UNK,
        pad_id=-1, input_sentence_size=1000000, shuffle_input_sentence=True, num_threads=2,
        minloglevel=1)
    with open(path, "wb") as f:
        f.write(buf.getvalue())
    return spm.SentencePieceProcessor(model_file=path)


def encode_corpus(work, sp, weights):
    path = os.path.join(work, "ids.npz")
    if not os.path.exists(path):
        data = {}
        for split in ("train", "dev"):
            for lang in ("en", "de"):
                seqs = sp.encode(read_lines(os.path.join(work, f"{split}.{lang}")))
                data[f"{split}.{lang}.len"] = np.array([len(s) + 1 for s in seqs], np.int32)
                data[f"{split}.{lang}.ids"] = np.concatenate(
                    [np.array(s + [EOS], np.int32) for s in seqs])
        np.savez(path, **data)
    z = np.load(path)

    def split_seqs(name):
        lens = z[name + ".len"]
        offs = np.concatenate([[0], np.cumsum(lens)])
        ids = z[name + ".ids"]
        return [ids[offs[i]:offs[i + 1]] for i in range(len(lens))]
    train = list(zip(split_seqs("train.en"), split_seqs("train.de")))
    dev = list(zip(split_seqs("dev.en"), split_seqs("dev.de")))
    # Package descriptions are the domain we are tested on: show them weights["descriptions"]
    # times an epoch; other sources of train.source likewise (games: the everyday language).
    if any(n > 1 for n in weights.values()):
        source_path = os.path.join(work, "train.source")
        if os.path.exists(source_path):  # the corpus names each pair's source (tools/data)
            sources = read_lines(source_path)
            assert len(sources) == len(train), f"{source_path}: not one line per training pair"
            unknown = set(weights) - set(sources)
            assert not unknown, f"--weight: no pairs of {sorted(unknown)} in {source_path}"
            # Copy k holds the pairs of weight >= k, in corpus order (with descriptions alone
            # weighted: the descriptions N - 1 more times, the order earlier runs trained on).
            extra = [p for k in range(2, max(weights.values()) + 1)
                     for p, source in zip(train, sources) if weights.get(source, 1) >= k]
        else:
            # The first corpus (no train.source): pairs of 8+ source tokens are mostly
            # description sentences there (Ding entries are short, catalogs few).
            extra = [p for p in train if len(p[0]) >= 8] * (weights.get("descriptions", 1) - 1)
        train = train + extra
    return train, dev


def make_batches(pairs, max_tokens, max_len, rng):
    """Length-sorted batches of about max_tokens (padded source + target) each, shuffled."""
    pairs = [p for p in pairs if len(p[0]) <= max_len and len(p[1]) <= max_len]
    order = sorted(range(len(pairs)), key=lambda i: (len(pairs[i][1]), len(pairs[i][0]),
                                                    rng.random()))
    batches, cur, cur_max = [], [], 0
    for i in order:
        m = max(cur_max, len(pairs[i][0]), len(pairs[i][1]))
        if cur and m * (len(cur) + 1) > max_tokens:
            batches.append(cur)
            cur, m = [], max(len(pairs[i][0]), len(pairs[i][1]))
        cur.append(i)
        cur_max = m
    if cur:
        batches.append(cur)
    rng.shuffle(batches)
    return pairs, batches


def collate(pairs, idx):
    src = [pairs[i][0] for i in idx]
    tgt = [pairs[i][1] for i in idx]
    S, T = max(map(len, src)), max(map(len, tgt))
    src_t = torch.zeros(len(idx), S, dtype=torch.long)
    src_m = torch.zeros(len(idx), S, dtype=torch.bool)
    tgt_out = torch.full((len(idx), T), -100, dtype=torch.long)   # -100: ignored by the loss
    tgt_in = torch.full((len(idx), T), 0, dtype=torch.long)
    for b, (s, t) in enumerate(zip(src, tgt)):
        src_t[b, :len(s)] = torch.from_numpy(s.astype(np.int64))
        src_m[b, :len(s)] = True
        tgt_out[b, :len(t)] = torch.from_numpy(t.astype(np.int64))
        tgt_in[b, 0] = -1                                          # Marian's zero start vector
        tgt_in[b, 1:len(t)] = torch.from_numpy(t[:-1].astype(np.int64))
    return src_t, src_m, tgt_in, tgt_out


def lr_at(step, peak, warmup):
    """Linear warm-up, then inverse square root decay (Marian's --lr-decay-inv-sqrt)."""
    return peak * min(step / warmup, math.sqrt(warmup / max(step, 1)))


def dev_loss(model, dev, max_tokens):
    model.eval()
    rng = random.Random(0)
    pairs, batches = make_batches(dev, max_tokens, 1000, rng)
    tot, n = 0.0, 0
    with torch.no_grad():
        for idx in batches:
            src, src_m, tgt_in, tgt_out = collate(pairs, idx)
            logits = model.decode_all(model.encode(src, src_m), src_m, tgt_in)
            tot += float(token_cross_entropy(logits, tgt_out, reduction="sum"))
            n += int((tgt_out >= 0).sum())
    model.train()
    return tot / n


def dev_chrf(model, sp, work, n=200):
    """chrF2 of greedy translations of the first n dev sentences (float32 decoding)."""
    try:
        from metrics import corpus_chrf
    except ImportError:
        return float("nan")
    src = read_lines(os.path.join(work, "dev.en"))[:n]
    ref = read_lines(os.path.join(work, "dev.de"))[:n]
    hyp = translate(model, sp, src)
    return corpus_chrf(hyp, [ref])


def translate(model, sp, lines, batch=32):
    model.eval()
    out = [None] * len(lines)
    enc = [sp.encode(l) + [EOS] for l in lines]
    order = sorted(range(len(lines)), key=lambda i: len(enc[i]))
    for k in range(0, len(order), batch):
        idx = order[k:k + batch]
        S = max(len(enc[i]) for i in idx)
        src = torch.zeros(len(idx), S, dtype=torch.long)
        mask = torch.zeros(len(idx), S, dtype=torch.bool)
        for b, i in enumerate(idx):
            src[b, :len(enc[i])] = torch.tensor(enc[i])
            mask[b, :len(enc[i])] = True
        max_len = torch.tensor([math.ceil(3.0 * len(enc[i])) for i in idx])
        for i, ids in zip(idx, model.greedy(src, mask, max_len)):
            out[i] = sp.decode(ids)
    model.train()
    return out


def token_cross_entropy(logits, tgt_out, **kwargs):
    """The loss of logits [B,T,V] against tgt_out [B,T] (-100: padding, ignored). Flattened to
    [B*T,V], the log-softmax runs along the contiguous last axis: on CPU it and its gradient took
    half the time they take over the [B,V,T] view of transpose(1, 2), for the same values."""
    return Fn.cross_entropy(logits.flatten(0, 1), tgt_out.flatten(), **kwargs)


def save(work, step, model, opt, epoch, pos, seed):
    d = os.path.join(work, "ckpt")
    os.makedirs(d, exist_ok=True)
    tmp = os.path.join(d, f"step-{step}.pt.tmp")
    torch.save({"step": step, "model": model.state_dict(), "opt": opt.state_dict(),
                "config": model.config(), "epoch": epoch, "pos": pos, "seed": seed}, tmp)
    os.replace(tmp, os.path.join(d, f"step-{step}.pt"))


def latest_checkpoint(work):
    paths = glob.glob(os.path.join(work, "ckpt", "step-*.pt"))
    return max(paths, key=lambda p: int(p.rsplit("-", 1)[1][:-3])) if paths else None


def cpu_has_bf16():
    try:
        with open("/proc/cpuinfo") as f:
            flags = f.read().split()
    except OSError:
        return False
    return "avx512_bf16" in flags or "amx_bf16" in flags


def source_weight(text):
    """--weight's SOURCE=N as (SOURCE, N), N >= 1."""
    source, _, n = text.partition("=")
    if not source or not n.isdigit() or int(n) < 1:
        raise argparse.ArgumentTypeError(f"{text!r}: expected SOURCE=N, N a whole number >= 1")
    return source, int(n)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--work", required=True)
    ap.add_argument("--vocab", type=int, default=8000)
    ap.add_argument("--dim", type=int, default=256)
    ap.add_argument("--ffn", type=int, default=1024)
    ap.add_argument("--heads", type=int, default=4)
    ap.add_argument("--enc-depth", type=int, default=3)
    ap.add_argument("--dec-depth", type=int, default=3)
    ap.add_argument("--dropout", type=float, default=0.1)
    ap.add_argument("--depth-scaling", action="store_true",
                    help="Marian's --transformer-depth-scaling initialisation (model.py)")
    ap.add_argument("--label-smoothing", type=float, default=0.1)
    ap.add_argument("--max-tokens", type=int, default=4000)
    ap.add_argument("--max-len", type=int, default=100)
    ap.add_argument("--lr", type=float, default=1e-3)
    ap.add_argument("--warmup", type=int, default=800)
    ap.add_argument("--desc-weight", type=int, default=2,
                    help="package descriptions shown N times an epoch (--weight descriptions=N)")
    ap.add_argument("--weight", action="append", default=[], metavar="SOURCE=N", type=source_weight,
                    help="the pairs of a source of train.source shown N times an epoch "
                         "(repeatable; a part that changes it continues at the same batch number "
                         "of an epoch composed differently)")
    ap.add_argument("--minutes", type=float, default=90.0, help="stop after this much training")
    ap.add_argument("--until-step", type=int, default=0,
                    help="stop at this step (0: no limit); a recipe that names steps reproduces "
                         "the same training on any machine, minutes do not")
    ap.add_argument("--save-every", type=float, default=8.0, help="minutes between checkpoints")
    ap.add_argument("--eval-every", type=int, default=3, help="checkpoints between dev chrF")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--log-every", type=int, default=100, help="steps between tok/s lines")
    # bf16 autocast only where the CPU computes bf16 itself: on an AVX2-only CPU it was emulated,
    # 2 steps in 90 s against 31 in float32 (2026-11-26, tools/train/README.md).
    ap.add_argument("--bf16", action=argparse.BooleanOptionalAction, default=cpu_has_bf16())
    args = ap.parse_args()

    torch.set_num_threads(args.threads)
    torch.manual_seed(1)
    sp = train_spm(args.work, args.vocab)
    weights = {"descriptions": args.desc_weight, **dict(args.weight)}
    train, dev = encode_corpus(args.work, sp, weights)
    log(args.work, f"vocab {sp.get_piece_size()}, train pairs {len(train)}, dev {len(dev)}, "
                   f"args {json.dumps(vars(args))}")

    model = MarianTransformer(sp.get_piece_size(), args.dim, args.heads, args.ffn,
                              args.enc_depth, args.dec_depth, args.dropout, args.depth_scaling)
    opt = torch.optim.Adam(model.parameters(), lr=args.lr, betas=(0.9, 0.98), eps=1e-9)
    step, epoch, pos, elapsed = 0, 0, 0, 0.0
    ck = latest_checkpoint(args.work)
    if ck:
        state = torch.load(ck)
        model.load_state_dict(state["model"])
        opt.load_state_dict(state["opt"])
        step, epoch, pos = state["step"], state["epoch"], state["pos"]
        elapsed = state.get("elapsed", 0.0)
        log(args.work, f"resumed from {ck}: step {step}, epoch {epoch}, batch {pos}")
    if 0 < args.until_step <= step:
        log(args.work, f"already at step {step} (--until-step {args.until_step}): nothing to do")
        return

    t_start, t_save, saves = time.time(), time.time(), 0
    tok_window, t_window, loss_window = 0, time.time(), []
    model.train()
    while True:
        pairs, batches = make_batches(train, args.max_tokens, args.max_len,
                                      random.Random(1000 + epoch))
        while pos < len(batches):
            src, src_m, tgt_in, tgt_out = collate(pairs, batches[pos])
            pos += 1
            step += 1
            for g in opt.param_groups:
                g["lr"] = lr_at(step, args.lr, args.warmup)
            with torch.autocast("cpu", dtype=torch.bfloat16, enabled=args.bf16):
                logits = model.decode_all(model.encode(src, src_m), src_m, tgt_in)
            loss = token_cross_entropy(logits.float(), tgt_out,
                                       label_smoothing=args.label_smoothing)
            opt.zero_grad(set_to_none=True)
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            opt.step()
            ntok = int((tgt_out >= 0).sum())
            tok_window += ntok
            loss_window.append(float(loss))
            if step % args.log_every == 0:
                now = time.time()
                log(args.work, f"step {step} epoch {epoch} batch {pos}/{len(batches)} "
                               f"loss {np.mean(loss_window):.3f} lr {lr_at(step, args.lr, args.warmup):.2e} "
                               f"{tok_window / (now - t_window):.0f} tgt tok/s")
                tok_window, t_window, loss_window = 0, now, []
            done = ((time.time() - t_start) / 60 >= args.minutes
                    or 0 < args.until_step <= step)
            if (time.time() - t_save) / 60 >= args.save_every or done:
                save(args.work, step, model, opt, epoch, pos, 0)
                saves += 1
                msg = f"saved step {step}; dev loss {dev_loss(model, dev, args.max_tokens):.4f}"
                if saves % args.eval_every == 0 or done:
                    msg += f", dev chrF2 (200 sent, greedy) {dev_chrf(model, sp, args.work):.2f}"
                log(args.work, msg)
                t_save = time.time()
            if done:
                log(args.work, f"finished after {(time.time() - t_start) / 60:.1f} minutes "
                               f"at step {step}")
                return
        epoch += 1
        pos = 0


if __name__ == "__main__":
    main()
