#!/usr/bin/python3
"""Load benchmark of `s2s serve` on loopback (docs/server.md, "Load").

Starts `s2s serve` on a free port, then for each client count sends the input's sentences as
one-sentence LibreTranslate requests from that many concurrent clients (each on its own
keep-alive connection) and reports requests/s, sentences/s, p50/p99 latency, the server's CPU %
and peak RSS, and the ratio to `s2s translate` of the same sentences as one file (the faster of
one worker on every core and one single-thread worker per core). Then the latency
of a lone short sentence on the idle server. Bounded: at most --sentences requests per client
count and --time-limit seconds each. Only the Python standard library.

    bench/serve_load.py --s2s build/s2s --model models/en-de --input FILE --clients 1,8,32,128
"""
import argparse
import http.client
import json
import os
import subprocess
import sys
import tempfile
import threading
import time

SHORT = "Hello world."


def read_sentences(path, count):
    with open(path, encoding="utf-8") as f:
        lines = [line.rstrip("\n").split("\t")[0] for line in f]
    lines = [line for line in lines if line.strip()]
    return lines[:count]


def cpu_seconds(pid):
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def peak_rss_mb(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    return 0.0


class Server:
    def __init__(self, args):
        self.dir = tempfile.mkdtemp(prefix="s2s-serve-load-")
        port_file = os.path.join(self.dir, "port")
        command = [args.s2s, "serve", "-m", args.model, "--port", "0", "--port-file", port_file,
                   "--threads", str(args.threads), "--workers", str(args.workers),
                   "--connections", str(max(args.clients) + 8),
                   "--max-queue", "100000", "--log", os.path.join(self.dir, "log")] + args.serve_args
        self.process = subprocess.Popen(command, stderr=subprocess.DEVNULL)
        deadline = time.time() + 60
        self.port = 0
        while not self.port and time.time() < deadline:
            if self.process.poll() is not None:
                sys.exit(f"s2s serve exited with {self.process.returncode}: {' '.join(command)}")
            try:
                with open(port_file) as f:
                    text = f.read()
                if text.endswith("\n"):
                    self.port = int(text)
            except FileNotFoundError:
                pass
            time.sleep(0.05)
        if not self.port:
            sys.exit("s2s serve did not start")

    def stop(self):
        self.process.terminate()
        self.process.wait(timeout=60)


def translate(connection, text):
    body = json.dumps({"q": text, "source": "en", "target": "de"})
    start = time.perf_counter()
    connection.request("POST", "/translate", body, {"Content-Type": "application/json"})
    response = connection.getresponse()
    answer = response.read()
    elapsed = time.perf_counter() - start
    if response.status != 200:
        raise RuntimeError(f"HTTP {response.status}: {answer[:200]!r}")
    return elapsed


def percentile(values, p):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(p / 100 * (len(ordered) - 1))))]


def load(server, sentences, clients, time_limit):
    """Every sentence once, taken in order by `clients` threads; stops taking at the time limit."""
    next_index = [0]
    lock = threading.Lock()
    latencies, errors = [], []
    deadline = time.perf_counter() + time_limit

    def client():
        connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=120)
        while time.perf_counter() < deadline:
            with lock:
                if next_index[0] >= len(sentences):
                    break
                text = sentences[next_index[0]]
                next_index[0] += 1
            try:
                elapsed = translate(connection, text)
            except Exception as e:  # counted and reported; the client reconnects
                with lock:
                    errors.append(str(e))
                connection.close()
                continue
            with lock:
                latencies.append(elapsed)
        connection.close()

    cpu_before = cpu_seconds(server.process.pid)
    start = time.perf_counter()
    threads = [threading.Thread(target=client) for _ in range(clients)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    wall = time.perf_counter() - start
    cpu = cpu_seconds(server.process.pid) - cpu_before
    if errors:
        print(f"{clients} clients: {len(errors)} failed requests, first: {errors[0]}", file=sys.stderr)
    return {"clients": clients, "requests": len(latencies), "wall": wall,
            "errors": len(errors), "rps": len(latencies) / wall, "p50": percentile(latencies, 50) * 1000,
            "p99": percentile(latencies, 99) * 1000, "cpu": 100 * cpu / wall}


def file_throughput(args, sentences):
    """Sentences/s of `s2s translate` on the sentences as one file, its model loading taken off."""
    with tempfile.NamedTemporaryFile("w", suffix=".en", delete=False) as f:
        f.write("\n".join(sentences) + "\n")
    empty = tempfile.NamedTemporaryFile("w", suffix=".en", delete=False).name

    def run(path, parallel):
        start = time.perf_counter()
        subprocess.run([args.s2s, "translate", "-m", args.model, *parallel, "-i", path, "-o", os.devnull],
                       check=True, stderr=subprocess.DEVNULL)
        return time.perf_counter() - start

    cores = os.cpu_count()
    rates = {}
    for parallel in (["--threads", str(cores)], ["--workers", str(cores), "--threads", "1"]):
        loading = min(run(empty, parallel) for _ in range(2))
        rates[" ".join(parallel)] = len(sentences) / (run(f.name, parallel) - loading)
    os.unlink(f.name)
    os.unlink(empty)
    return max(rates.items(), key=lambda item: item[1])


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--s2s", default="build/s2s")
    parser.add_argument("--model", default="models/en-de")
    parser.add_argument("--input", default="tests/data/en-de/fidelity.tsv",
                        help="sentences, one a line (a TSV: its first column)")
    parser.add_argument("--sentences", type=int, default=512, help="most sentences per client count")
    parser.add_argument("--clients", default="1,8,32,128")
    parser.add_argument("--threads", type=int, default=0, help="the server's threads per worker (0: its default)")
    parser.add_argument("--workers", type=int, default=0, help="the server's workers (0: its default)")
    parser.add_argument("--time-limit", type=float, default=120, help="seconds per client count")
    parser.add_argument("--idle-requests", type=int, default=50)
    parser.add_argument("--serve-args", default="", help="more flags for s2s serve")
    args = parser.parse_args()
    args.clients = [int(c) for c in args.clients.split(",")]
    args.serve_args = args.serve_args.split()
    sentences = read_sentences(args.input, args.sentences)
    if not sentences:
        sys.exit(f"{args.input}: no sentences")

    file_flags, file_rate = file_throughput(args, sentences)
    server = Server(args)
    try:
        connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=60)
        translate(connection, SHORT)  # warm-up
        rows = [load(server, sentences, c, args.time_limit) for c in args.clients]
        time.sleep(0.2)
        connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=60)
        idle = [translate(connection, SHORT) for _ in range(args.idle_requests)]
        rss = peak_rss_mb(server.process.pid)
    finally:
        server.stop()

    print(f"{len(sentences)} sentences of {args.input}; model {args.model}; server --threads {args.threads} "
          f"--workers {args.workers}; load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    print(f"s2s translate, one file ({file_flags}): {file_rate:.1f} sentences/s\n")
    print("| clients | requests | failed | requests/s = sentences/s | p50 ms | p99 ms | server CPU % | vs file |")
    print("|---:|---:|---:|---:|---:|---:|---:|---:|")
    for r in rows:
        print(f"| {r['clients']} | {r['requests']} | {r['errors']} | {r['rps']:.1f} | {r['p50']:.0f} | {r['p99']:.0f} | "
              f"{r['cpu']:.0f} | {100 * r['rps'] / file_rate:.0f} % |")
    print(f"\nidle server, lone \"{SHORT}\": p50 {percentile(idle, 50) * 1000:.1f} ms, "
          f"p99 {percentile(idle, 99) * 1000:.1f} ms ({len(idle)} requests); server peak RSS {rss:.0f} MB")
    if any(r["errors"] for r in rows):
        sys.exit("some requests failed")


if __name__ == "__main__":
    main()
