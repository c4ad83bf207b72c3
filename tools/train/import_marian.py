#!/usr/bin/python3
"""Turn an exported Marian folder back into a training checkpoint, to continue training it.

    /usr/bin/python3 tools/train/import_marian.py --model models/en-de --work WORK --step 4400

Checkpoints (WORK/ckpt) are not committed, so a fresh machine has only the exported model. This
writes WORK/spm.model (the model's source.spm: the vocabulary must stay the same) and
WORK/ckpt/step-STEP.pt holding the model's weights, a fresh Adam state and a place in the data
(--epoch, --pos: the batch to continue with; train.py's batch order is fixed per epoch, so a
continuation that names where the exported run stopped sees new data rather than the batches the
model has just been trained on); train.py then resumes from it as from its own checkpoint. STEP sets where the learning-rate schedule resumes
(inverse square root after warm-up); the Adam moments start from zero, so the first updates are
slightly larger than they would have been without the interruption.
"""
import argparse
import json
import os
import shutil
import sys

import numpy as np
import torch
import yaml

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from export_marian import MODEL_FILE, marian_parameters  # noqa: E402
from model import MarianTransformer  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--model", required=True, help="a folder written by export_marian.py")
    ap.add_argument("--work", required=True)
    ap.add_argument("--step", type=int, help="required unless the folder has a resume.json")
    ap.add_argument("--lr", type=float, default=1e-3, help="train.py's --lr (Adam's initial lr)")
    ap.add_argument("--epoch", type=int, help="the epoch to continue in (default 0)")
    ap.add_argument("--pos", type=int, help="the batch of that epoch to continue with (default 0)")
    args = ap.parse_args()
    # A resume point (export_marian.py --resume-point) names its own place; flags override it.
    resume = os.path.join(args.model, "resume.json")
    place = json.load(open(resume, encoding="utf-8")) if os.path.exists(resume) else {}
    for key in ("step", "epoch", "pos"):
        if getattr(args, key) is None:
            setattr(args, key, place.get(key, 0 if key != "step" else None))
    if args.step is None:
        ap.error("--step is required (the folder has no resume.json)")

    ckpt_dir = os.path.join(args.work, "ckpt")
    if os.path.isdir(ckpt_dir) and os.listdir(ckpt_dir):
        sys.exit(f"import: {ckpt_dir} already holds checkpoints; train.py would resume from those")
    os.makedirs(args.work, exist_ok=True)
    spm_path = os.path.join(args.work, "spm.model")
    src_spm = os.path.join(args.model, "source.spm")
    if os.path.exists(spm_path) and open(spm_path, "rb").read() != open(src_spm, "rb").read():
        sys.exit(f"import: {spm_path} differs from {src_spm}; remove it or use another work folder")
    shutil.copyfile(src_spm, spm_path)

    npz = np.load(os.path.join(args.model, MODEL_FILE))
    cfg = yaml.safe_load(bytes(npz["special:model.yml"]).rstrip(b"\0").decode("utf-8"))
    vocab = cfg["dim-vocabs"][0]
    model = MarianTransformer(vocab, cfg["dim-emb"], cfg["transformer-heads"],
                              cfg["transformer-dim-ffn"], cfg["enc-depth"], cfg["dec-depth"],
                              dropout=0.1)
    params = marian_parameters(model)
    missing = sorted(set(params) - set(npz.files))
    if missing:
        sys.exit(f"import: {MODEL_FILE} lacks {', '.join(missing)}")
    with torch.no_grad():
        for name, p in params.items():
            value = torch.from_numpy(npz[name].astype(np.float32))
            if tuple(value.shape) != tuple(p.shape):
                sys.exit(f"import: {name} has shape {tuple(value.shape)}, expected {tuple(p.shape)}")
            p.copy_(value)
    opt = torch.optim.Adam(model.parameters(), lr=args.lr, betas=(0.9, 0.98), eps=1e-9)
    os.makedirs(ckpt_dir, exist_ok=True)
    out = os.path.join(ckpt_dir, f"step-{args.step}.pt")
    torch.save({"step": args.step, "model": model.state_dict(), "opt": opt.state_dict(),
                "config": model.config(), "epoch": args.epoch, "pos": args.pos, "seed": 0}, out)
    print(f"imported {len(params)} tensors from {args.model} -> {out} "
          f"(epoch {args.epoch}, batch {args.pos})")


if __name__ == "__main__":
    main()
