#!/usr/bin/python3
"""Runs the shell code blocks of Markdown files against a built tree, so that the commands a
reader copies still work.

    tools/readme_blocks.py --build BUILD_DIR [--timeout SECONDS] FILE.md ...

Which blocks run (the info string after the opening fence):
  ```sh            runs; ```bash and ```shell too.
  ```sh no-run     is shown, never run (needs root, a server, a model that is not shipped, ...);
                   any block in another language (```text, ```console, ```cpp, ...) is not run.
A block whose first line starts with "$ " is a transcript: each "$ " line is a command and the
lines after it, up to the next "$ " line, are its expected standard output (compared exactly,
when there are any). Any other block runs as one bash script with `set -euo pipefail`.

The blocks of a file run in order in one fresh temporary folder that holds a link to every entry
at the top of the source tree, and `build` linked to BUILD_DIR; BUILD_DIR is first on PATH, so
`s2s` is the built binary. Files the blocks write stay in the temporary folder. Exit 1 naming
the file, line and output of each block that failed.
"""

import argparse
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RUN_LANGUAGES = {"sh", "bash", "shell"}
FENCE = re.compile(r"^(\s*)(`{3,}|~{3,})\s*(.*)$")


class Block:
    def __init__(self, path, line, info, lines):
        self.path, self.line, self.lines = path, line, lines
        words = info.split()
        self.language = words[0].lower() if words else ""
        self.flags = {w.lower() for w in words[1:]}

    def runs(self):
        return self.language in RUN_LANGUAGES and "no-run" not in self.flags

    def where(self):
        return "%s:%d" % (self.path, self.line)


def read_blocks(path):
    """The fenced code blocks of a Markdown file, with the line of their opening fence."""
    blocks, open_fence = [], None
    with open(path, encoding="utf-8") as fh:
        for number, text in enumerate(fh, 1):
            text = text.rstrip("\n")
            match = FENCE.match(text)
            if open_fence is None:
                if match:
                    indent, fence, info = match.groups()
                    open_fence = (indent, fence, number, info, [])
                continue
            indent, fence, start, info, lines = open_fence
            if match and match.group(2).startswith(fence) and not match.group(3):
                blocks.append(Block(path, start, info, lines))
                open_fence = None
            else:
                lines.append(text[len(indent):] if text.startswith(indent) else text.lstrip())
    if open_fence is not None:
        raise ValueError("%s:%d: code block never closed" % (path, open_fence[2]))
    return blocks


def transcript_steps(lines):
    """[(command, expected stdout lines)] of a transcript block."""
    steps = []
    for text in lines:
        if text.startswith("$ "):
            steps.append((text[2:], []))
        elif steps:
            steps[-1][1].append(text)
    return steps


def run_script(script, folder, env, timeout):
    """(ok, output) of one bash script run in folder."""
    # A session of its own: on a timeout the whole process group goes, background jobs too.
    with subprocess.Popen(["bash", "-c", "set -euo pipefail\n" + script], cwd=folder, env=env,
                          stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          text=True, start_new_session=True) as process:
        try:
            out, err = process.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.communicate()
            return False, "", "timed out after %d s" % timeout
    return process.returncode == 0, out, err + "exit %d" % process.returncode


def run_block(block, folder, env, timeout):
    """None when the block ran as shown, else what went wrong."""
    if block.lines and block.lines[0].startswith("$ "):
        for command, expected in transcript_steps(block.lines):
            ok, out, err = run_script(command, folder, env, timeout)
            if not ok:
                return "$ %s\n%s" % (command, (out + err).strip())
            if expected and out.rstrip("\n").split("\n") != expected:
                return "$ %s\nexpected:\n%s\ngot:\n%s" % (command, "\n".join(expected), out)
        return None
    ok, out, err = run_script("\n".join(block.lines), folder, env, timeout)
    return None if ok else (out + err).strip()


def make_folder(source, build):
    """A temporary folder with a link to each top-level entry of the source tree."""
    folder = tempfile.mkdtemp(prefix="readme-blocks-")
    for name in os.listdir(source):
        if name not in (".git", "build"):
            os.symlink(os.path.join(source, name), os.path.join(folder, name))
    os.symlink(build, os.path.join(folder, "build"))
    return folder


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--build", required=True, help="the build folder (holds the s2s binary)")
    parser.add_argument("--timeout", type=int, default=300, help="seconds per block")
    parser.add_argument("files", nargs="+")
    args = parser.parse_args()
    build = os.path.abspath(args.build)
    if not os.access(os.path.join(build, "s2s"), os.X_OK):
        sys.exit("readme_blocks: no s2s binary in %s" % build)
    env = dict(os.environ, PATH=build + os.pathsep + os.environ.get("PATH", ""))
    failed = ran = 0
    for path in args.files:
        try:
            blocks = [b for b in read_blocks(path) if b.runs()]
        except (OSError, ValueError) as error:
            sys.exit("readme_blocks: %s" % error)
        folder = make_folder(ROOT, build)
        try:
            for block in blocks:
                problem = run_block(block, folder, env, args.timeout)
                ran += 1
                if problem is not None:
                    failed += 1
                    print("readme_blocks: %s: block failed:\n%s\n" % (block.where(), problem))
        finally:
            shutil.rmtree(folder, ignore_errors=True)
    print("readme_blocks: %d of %d blocks ran as shown" % (ran - failed, ran))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
