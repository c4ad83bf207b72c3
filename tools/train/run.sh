#!/bin/bash
# Train the default model in the background, resumably:
#   bash tools/train/run.sh WORK_DIR [train.py options]   (WORK_DIR from tools/data/build_corpus.py)
# Debian's torch links the reference BLAS; OpenBLAS (libopenblas0-openmp) is about 30x faster and is
# selected for this process only, leaving the system's BLAS alternative alone.
set -euo pipefail
work=${1:?usage: run.sh WORK_DIR [train.py options]}; shift
here=$(cd "$(dirname "$0")" && pwd)
export LD_LIBRARY_PATH=/usr/lib/x86_64-linux-gnu/openblas-openmp${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export OMP_NUM_THREADS=${OMP_NUM_THREADS:-2}
nohup /usr/bin/python3 "$here/train.py" --work "$work" "$@" >> "$work/train.out" 2>&1 &
echo "training in the background (pid $!); follow it with: tail -f $work/train.log"
