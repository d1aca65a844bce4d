"""Runs every ```sh/```bash/```python block of docs/TUTORIAL.md in order, as a user would.

    python tests/tutorial_run.py TUTORIAL.md      (in an empty folder; olive's programs on PATH)

The shell blocks go to one bash session (set -e: a failing command fails
its block), the Python blocks to one Python namespace (this interpreter's),
interleaved in the page's order. Each block's stdout and stderr go to
block-K.out. A ```text block shows output: each of its lines must be a line
of the output of the nearest runnable block above it (spaces collapsed; a
line ending in '...' matches a line starting with what precedes it), so a
number the page quotes is the number a run gives. Exit status 1 on the
first failing block or output that does not match.
"""

import os
import subprocess
import sys
import time
import traceback

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "scripts"))
from tutorial_notebook import RUN, blocks  # noqa: E402


def fail(msg, out=None):
    if out and os.path.exists(out):
        sys.stderr.write(open(out, encoding="utf-8", errors="replace").read()[-4000:])
    print(f"FAIL: {msg}", file=sys.stderr)
    sys.exit(1)


class Bash:
    """One bash process fed block after block; each block reports its end on a pipe of its own."""

    def __init__(self):
        self.r, w = os.pipe()
        self.proc = subprocess.Popen(["bash", "--noprofile", "--norc"], stdin=subprocess.PIPE, text=True,
                                     pass_fds=(w,))
        os.close(w)
        self.done = os.fdopen(self.r)
        self.w = w
        self.send("set -eo pipefail\n")

    def send(self, text):
        self.proc.stdin.write(text)
        self.proc.stdin.flush()

    def run(self, k, code, out):
        self.send(f"exec >{out} 2>&1\n{code}\necho {k} >&{self.w}\n")
        if self.done.readline().strip() != str(k):   # bash exited: a command failed (set -e)
            self.proc.wait()
            fail(f"TUTORIAL.md block {k} (bash) failed with exit status {self.proc.returncode}", out)


def run_python(k, code, out, namespace):
    """exec() in the shared namespace, with fds 1 and 2 (the programs' output too) into out."""
    saved = os.dup(1), os.dup(2)
    sys.stdout.flush(), sys.stderr.flush()
    with open(out, "w") as f:
        os.dup2(f.fileno(), 1), os.dup2(f.fileno(), 2)
    try:
        exec(compile(code, f"TUTORIAL.md block {k}", "exec"), namespace)
        ok = True
    except BaseException:
        traceback.print_exc()
        ok = False
    finally:
        sys.stdout.flush(), sys.stderr.flush()
        os.dup2(saved[0], 1), os.dup2(saved[1], 2)
        os.close(saved[0]), os.close(saved[1])
    if not ok:
        fail(f"TUTORIAL.md block {k} (python) raised", out)


def check_output(k, out, expected):
    norm = lambda s: " ".join(s.split())  # noqa: E731
    got = [norm(x) for x in open(out, encoding="utf-8", errors="replace").read().splitlines()]
    for line in filter(None, map(norm, expected.splitlines())):
        if line.endswith("..."):
            ok = any(g.startswith(line[:-3].rstrip()) for g in got)
        else:
            ok = line in got
        if not ok:
            fail(f"TUTORIAL.md block {k}: the output shown has '{line}', the run printed no such line", out)


def main(path):
    bash, namespace, k, last = Bash(), {"__name__": "__main__"}, 0, None
    checked = 0
    for kind, lang, body in blocks(open(path, encoding="utf-8").read()):
        if kind != "fence":
            continue
        if lang == "text":
            if last is None:
                fail("TUTORIAL.md: a ```text block before any code block")
            check_output(*last, body)
            checked += 1
            continue
        if lang not in RUN:
            continue
        k += 1
        out, t0 = f"block-{k}.out", time.monotonic()
        if RUN[lang] == "bash":
            bash.run(k, body, out)
        else:
            run_python(k, body, out, namespace)
        last = (k, out)
        print(f"ok block {k} ({lang}, {body.count(chr(10)) + 1} lines): {time.monotonic() - t0:.1f} s", flush=True)
    bash.proc.stdin.close()
    bash.proc.wait()
    print(f"{k} blocks ran, {checked} outputs checked")


if __name__ == "__main__":
    main(sys.argv[1])
