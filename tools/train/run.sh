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
# glibc's malloc hands PyTorch's large per-step tensors (the logits alone are ~100 MB) back to the
# kernel with munmap and maps them again the next step: a third of the CPU time went to page
# faults (1,200 target tokens/s). jemalloc (Debian's libjemalloc2) told never to return memory
# keeps them: 3,100 tokens/s on the same machine.
jemalloc=/usr/lib/x86_64-linux-gnu/libjemalloc.so.2
if [ -f "$jemalloc" ]; then
  export LD_PRELOAD=$jemalloc${LD_PRELOAD:+:$LD_PRELOAD}
  export MALLOC_CONF=${MALLOC_CONF:-dirty_decay_ms:-1,muzzy_decay_ms:-1}
else
  echo "note: apt-get install libjemalloc2 makes training ~2.5x faster (see run.sh)" >&2
fi
nohup /usr/bin/python3 "$here/train.py" --work "$work" "$@" >> "$work/train.out" 2>&1 &
echo "training in the background (pid $!); follow it with: tail -f $work/train.log"
