#!/usr/bin/python3
"""Export trained checkpoints to a Marian / OPUS-MT release folder that s2s (and Marian) load.

    /usr/bin/python3 tools/train/export_marian.py --work WORK --out models/en-de [--average 4]

Averages the parameters of the newest --average checkpoints (checkpoint averaging), then writes:
  model.npz     Marian tensor names, float32, written like Marian's cnpy, with special:model.yml
  vocab.yml     the joint vocabulary, one entry per SentencePiece id (same order)
  source.spm    the joint SentencePiece model; target.spm is the same file
  decoder.yml   beam 4, length normalisation 1 (s2s takes these as its defaults for the model)
and WORK/export.pt, the averaged PyTorch model the fidelity check decodes with.

    /usr/bin/python3 tools/train/export_marian.py --work WORK --out DIR --resume-point

writes a resume point instead: the newest checkpoint alone, its weights in float16 (half the
size; rounding them moves each weight by less than a twentieth of one late training step), its
source.spm and resume.json (step, epoch, batch). It is small enough to commit, so that a run
outlives the machine it trained on: import_marian.py --model DIR continues from it.
"""
import argparse
import glob
import json
import os
import shutil
import sys

import numpy as np
import sentencepiece as spm
import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "fixtures"))
import make_marian_fixtures as mf  # noqa: E402  (npz and yml writers shared with the fixtures)
from model import MarianTransformer  # noqa: E402

MODEL_FILE = "model.npz"


def average_checkpoints(work, n):
    paths = sorted(glob.glob(os.path.join(work, "ckpt", "step-*.pt")),
                   key=lambda p: int(p.rsplit("-", 1)[1][:-3]))[-n:]
    if not paths:
        sys.exit(f"export: no checkpoints in {work}/ckpt")
    states = [torch.load(p)["model"] for p in paths]
    config = torch.load(paths[-1])["config"]
    avg = {k: sum(s[k].float() for s in states) / len(states) for k in states[0]}
    return avg, config, paths


def build_model(avg, config):
    model = MarianTransformer(config["vocab"], config["dim"], config["heads"], config["dim_ffn"],
                              config["enc_depth"], config["dec_depth"], dropout=0.0)
    model.load_state_dict(avg)
    model.eval()
    return model


def marian_parameters(model):
    """{Marian tensor name: the PyTorch parameter it holds} (import_marian.py uses it backwards)."""
    out = {"Wemb": model.Wemb, "decoder_ff_logit_out_b": model.out_b}

    def attention(prefix, att):
        for m in "qkvo":
            lin = getattr(att, m)
            out[f"{prefix}_W{m}"], out[f"{prefix}_b{m}"] = lin.W, lin.b
        out[f"{prefix}_Wo_ln_scale"], out[f"{prefix}_Wo_ln_bias"] = att.ln.scale, att.ln.bias

    def ffn(prefix, f):
        out[f"{prefix}_W1"], out[f"{prefix}_b1"] = f.l1.W, f.l1.b
        out[f"{prefix}_W2"], out[f"{prefix}_b2"] = f.l2.W, f.l2.b
        out[f"{prefix}_ffn_ln_scale"], out[f"{prefix}_ffn_ln_bias"] = f.ln.scale, f.ln.bias

    for i, layer in enumerate(model.enc, 1):
        attention(f"encoder_l{i}_self", layer.self_att)
        ffn(f"encoder_l{i}_ffn", layer.ffn)
    for i, layer in enumerate(model.dec, 1):
        attention(f"decoder_l{i}_self", layer.self_att)
        attention(f"decoder_l{i}_context", layer.context)
        ffn(f"decoder_l{i}_ffn", layer.ffn)
    return out


def marian_tensors(model):
    """PyTorch parameters -> {Marian tensor name: float32 array}."""
    return {k: v.detach().float().numpy().astype(np.float32)
            for k, v in marian_parameters(model).items()}


def marian_config(config):
    cfg = mf.base_cfg()
    V = config["vocab"]
    cfg.update({
        "dim-vocabs": [V, V], "dim-emb": config["dim"], "transformer-dim-ffn": config["dim_ffn"],
        "transformer-heads": config["heads"], "enc-depth": config["enc_depth"],
        "dec-depth": config["dec_depth"], "tied-embeddings-all": True,
        "transformer-ffn-activation": "swish", "transformer-preprocess": "",
        "transformer-postprocess": "dan", "transformer-postprocess-emb": "d",
        "transformer-depth-scaling": bool(config.get("depth_scaling", False)),
        "version": "v1.12.0 s2s tools/train",
    })
    return cfg


def write_vocab_yml(path, sp):
    with open(path, "w", encoding="utf-8", newline="\n") as f:
        for i in range(sp.get_piece_size()):
            f.write("%s: %d\n" % (mf.yamlcpp_key(sp.id_to_piece(i)), i))


def write_resume_point(work, out):
    _, config, paths = average_checkpoints(work, 1)
    state = torch.load(paths[-1])
    model = build_model(state["model"], config)
    os.makedirs(out, exist_ok=True)
    tensors = marian_tensors(model)
    yml = mf.model_yml_array(mf.emit_model_yml(marian_config(config)), pad256=False)
    items = [(k, tensors[k].astype(np.float16)) for k in sorted(tensors)]
    np.savez(os.path.join(out, MODEL_FILE), **dict(items), **{"special:model.yml": yml})
    shutil.copyfile(os.path.join(work, "spm.model"), os.path.join(out, "source.spm"))
    place = {"step": state["step"], "epoch": state["epoch"], "pos": state["pos"]}
    with open(os.path.join(out, "resume.json"), "w", encoding="utf-8") as f:
        json.dump(place, f)
        f.write("\n")
    print(f"resume point of {os.path.basename(paths[-1])} (epoch {place['epoch']}, "
          f"batch {place['pos']}) -> {out}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--work", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--average", type=int, default=4)
    ap.add_argument("--resume-point", action="store_true",
                    help="the newest checkpoint in float16 with its place in the data, to commit")
    args = ap.parse_args()
    if args.resume_point:
        write_resume_point(args.work, args.out)
        return

    avg, config, paths = average_checkpoints(args.work, args.average)
    model = build_model(avg, config)
    torch.save({"model": avg, "config": config, "averaged": [os.path.basename(p) for p in paths]},
               os.path.join(args.work, "export.pt"))

    os.makedirs(args.out, exist_ok=True)
    tensors = marian_tensors(model)
    yml = mf.model_yml_array(mf.emit_model_yml(marian_config(config)), pad256=False)
    items = [(k, tensors[k]) for k in sorted(tensors)] + [("special:model.yml", yml)]
    mf.write_npz_cnpy(os.path.join(args.out, MODEL_FILE), items)

    spm_path = os.path.join(args.work, "spm.model")
    sp = spm.SentencePieceProcessor(model_file=spm_path)
    assert sp.get_piece_size() == config["vocab"], "spm and model disagree on the vocabulary size"
    assert sp.id_to_piece(0) == "</s>" and sp.id_to_piece(1) == "<unk>", "not Marian's ids"
    write_vocab_yml(os.path.join(args.out, "vocab.yml"), sp)
    shutil.copyfile(spm_path, os.path.join(args.out, "source.spm"))
    shutil.copyfile(spm_path, os.path.join(args.out, "target.spm"))
    mf.write_decoder_yml(os.path.join(args.out, "decoder.yml"), MODEL_FILE,
                         ["vocab.yml", "vocab.yml"])
    n = sum(t.size for t in tensors.values())
    print(f"exported {len(tensors)} tensors ({n:,} parameters), average of "
          f"{', '.join(os.path.basename(p) for p in paths)} -> {args.out}")


if __name__ == "__main__":
    main()
