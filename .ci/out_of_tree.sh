#!/usr/bin/env bash
# Issue 17: a build folder outside the checkout and a binary started through PATH from another
# folder still find the shipped default model. Configures a second build tree elsewhere (no
# compile: the Release binary of build/ is copied into it, where a build there would put it).
set -euo pipefail
cd "$(dirname "$0")/.."
elsewhere=$(mktemp -d)
trap 'rm -rf "$elsewhere"' EXIT
cmake -S . -B "$elsewhere/build" -DCMAKE_BUILD_TYPE=Release -DS2S_BUILD_TESTS=OFF \
  -DS2S_BUILD_BENCH=OFF > /dev/null
cp build/s2s "$elsewhere/build/s2s"
out=$(cd / && printf 'The licence is free.\n' | env -u S2S_MODEL PATH="$elsewhere/build:$PATH" s2s translate)
[ -n "$out" ] || { echo "out-of-tree: no translation"; exit 1; }
echo "out-of-tree build folder and PATH start: default model found ($out)"
