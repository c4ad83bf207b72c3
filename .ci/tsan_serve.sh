#!/usr/bin/env bash
# `s2s serve` under ThreadSanitizer (.ci/sanitize.sh): eight clients post at once to a server with
# two engine workers and small batches, so that the HTTP threads, the request queue and the
# workers all run side by side; every answer must equal the CLI's translation of its text, and
# the server must stop cleanly (exit 0, no TSan report) on SIGTERM.
#   bash .ci/tsan_serve.sh SERVE_BINARY REFERENCE_BINARY MODEL_FOLDER
set -euo pipefail
serve_bin=$1 ref_bin=$2 model=$3
work=$(mktemp -d)
pid=""
cleanup() { if [ -n "$pid" ]; then kill "$pid" 2> /dev/null || true; fi; rm -rf "$work"; }
trap cleanup EXIT

for i in $(seq 1 16); do echo "Sentence $i: you may copy the program."; done > "$work/input"
"$ref_bin" translate -m "$model" --threads 1 < "$work/input" > "$work/expected"

"$serve_bin" serve -m "en-de=$model" --port 0 --port-file "$work/port" --workers 2 --threads 1 \
  --max-batch 3 --batch-wait-ms 20 --log "$work/access.log" 2> "$work/server.err" &
pid=$!
for _ in $(seq 1 600); do [ -s "$work/port" ] && break; sleep 0.1; done
[ -s "$work/port" ] || { echo "tsan_serve: server did not start"; cat "$work/server.err"; exit 1; }

/usr/bin/python3 - "$(cat "$work/port")" "$work/input" "$work/expected" <<'PY'
import json, sys, urllib.request
from concurrent.futures import ThreadPoolExecutor
port, texts, expected = sys.argv[1], open(sys.argv[2]).read().splitlines(), open(sys.argv[3]).read().splitlines()
def translate(text):
    body = json.dumps({"q": text, "source": "en", "target": "de"}).encode()
    req = urllib.request.Request(f"http://127.0.0.1:{port}/translate", body, {"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=300) as r:
        return json.load(r)["translatedText"]
with ThreadPoolExecutor(8) as pool:
    got = list(pool.map(translate, texts))
bad = [(t, g, e) for t, g, e in zip(texts, got, expected) if g != e]
if bad:
    sys.exit("tsan_serve: answers differ from the CLI: %r" % bad[:3])
print("tsan_serve: %d concurrent requests answered as the CLI translates" % len(texts))
PY

kill -TERM "$pid"
status=0
wait "$pid" || status=$?
pid=""
[ "$status" = 0 ] || { echo "tsan_serve: server exit $status"; cat "$work/server.err"; exit 1; }
