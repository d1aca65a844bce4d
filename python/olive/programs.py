"""Finding and running olive's programs, with their progress and their errors.

The programs are looked up in $OLIVE_BIN, else in the package's own bin/
(`pip install ./python` builds them there), else on PATH, else in build/bin
of the repository this package sits in (running from a checkout). A run passes
--progress, reads the program's stderr line by line and hands each progress
line ("olive-simulate: simulating  42.0% (3 s, 4 s left, ...)") to a
callback or prints it; a non-zero exit raises OliveError carrying the
program's own error message.

Ctrl-C while a program runs reaches the program once, from here: it runs in
a process group of its own, so the terminal's SIGINT goes to Python only,
and run_program passes one SIGINT on and waits. olive-simulate takes a first
SIGINT or SIGTERM alike: it stops at the next 256-step boundary, writes the
output so far and its state.h5, and exits 130 (SIGINT); a second signal
stops it at once with nothing to continue from, so only a second Ctrl-C
sends one. Then OliveInterrupted (a KeyboardInterrupt) carries its message.

SIGTERM (or SIGHUP) to the Python process while a program runs is passed on
the same way, and the process then exits with 128 + the signal's number
(SystemExit: `finally` blocks and the temporary directories' clean-up run).
The program also dies with this process however it ends (SIGKILL included):
Linux's parent-death signal sends it SIGTERM, so no olive-simulate runs on
orphaned.
"""

import ctypes
import os
import re
import shutil
import signal
import subprocess
import sys
import threading
from dataclasses import dataclass
from pathlib import Path

from . import runtime
from .errors import OliveError, OliveInterrupted, ProgramNotFound

_PROGRESS = re.compile(r"^(?P<program>olive-[a-z]+): (?P<phase>.*?)\s+(?P<percent>\d+(?:\.\d+)?)% \((?P<detail>.*)\)$")


@dataclass
class Progress:
    """One progress line of a program: phase (e.g. 'simulating'), fraction 0..1, detail (time taken, left)."""

    program: str
    phase: str
    fraction: float
    detail: str
    line: str


@dataclass
class Completed:
    """A finished program: its command line, exit status, stdout and stderr."""

    command: list
    returncode: int
    stdout: str
    stderr: str


def parse_progress(line):
    """A Progress from one stderr line, or None when the line is not a progress line."""
    m = _PROGRESS.match(line.strip().replace("\r", ""))
    if not m:
        return None
    return Progress(m["program"], m["phase"], float(m["percent"]) / 100.0, m["detail"], line.strip())


def _checkout_bin():
    here = Path(__file__).resolve().parent
    for up in (here.parent.parent, here.parent):
        if (up / "build" / "bin").is_dir() and (up / "common").is_dir():
            return up / "build" / "bin"
    return None


def _package_bin():
    """Where `pip install` puts the programs built with the package."""
    return Path(__file__).resolve().parent / "bin"


def _executable(folder, name):
    p = Path(folder) / name
    return str(p) if p.is_file() and os.access(p, os.X_OK) else None


def find_program(name, path=True):
    """The path of olive program name ('olive-simulate' or 'simulate').

    $OLIVE_BIN, when set, is the only place looked at (a wrong setting is an
    error, not a silent fall back to another build); else the package's own
    bin/ (what pip built with it), else PATH (path=False: not), else the
    checkout's build/bin.
    """
    if not name.startswith("olive-"):
        name = "olive-" + name
    env = os.environ.get("OLIVE_BIN")
    if env:
        found = _executable(env, name)
        if not found:
            raise ProgramNotFound(f"{Path(env) / name}: not found or not executable (OLIVE_BIN={env})")
        return found
    found = _executable(_package_bin(), name) or (path and shutil.which(name))
    if not found and _checkout_bin():
        found = _executable(_checkout_bin(), name)
    if found:
        return found
    raise ProgramNotFound(f"{name}: not found: set OLIVE_BIN to the folder holding olive's programs, "
                          "put them on PATH (make install), build the checkout (make), "
                          "or pip install olive with its programs (docs/PYTHON.md)")


def main():
    """The console scripts olive-genconn, ... that pip puts on the venv's PATH: run the package's program.

    PATH is not searched, where this script itself would be found.
    """
    name = os.path.basename(sys.argv[0])
    try:
        program = find_program(name, path=False)
    except ProgramNotFound as e:
        sys.exit(f"{name}: {e}")
    os.execve(program, [program] + sys.argv[1:], runtime.environment(program))


def _mpirun(ranks, mpirun):
    exe = mpirun or os.environ.get("OLIVE_MPIRUN") or shutil.which("mpirun") or shutil.which("mpiexec")
    if not exe:
        raise ProgramNotFound("mpirun: not found (set OLIVE_MPIRUN or install Open MPI) for ranks > 1")
    return [exe, "-np", str(int(ranks))]


class _Terminated(SystemExit):
    """SIGTERM or SIGHUP came while a program ran: passed on, then the exit."""

    def __init__(self, signum):
        super().__init__(128 + signum)
        self.signum = signum


def _raise_terminated(signum, frame):
    raise _Terminated(signum)


def _die_with_parent():
    """In the child before exec (Linux): SIGTERM when the parent ends, however it ends."""
    try:
        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGTERM, 0, 0, 0)   # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass


class _ForwardTermination:
    """SIGTERM and SIGHUP become _Terminated while a program runs (in the main thread:
    Python sets handlers there only; elsewhere the parent-death signal still holds)."""

    SIGNALS = tuple(s for s in (getattr(signal, "SIGTERM", None), getattr(signal, "SIGHUP", None)) if s)

    def __enter__(self):
        self.old = {}
        if threading.current_thread() is threading.main_thread():
            for s in self.SIGNALS:
                old = signal.getsignal(s)
                if old in (signal.SIG_DFL, None):   # (a handler of the user's own stays)
                    self.old[s] = signal.signal(s, _raise_terminated)
        return self

    def __exit__(self, *exc):
        for s, old in self.old.items():
            signal.signal(s, old)
        return False


def _printer(p):
    print(p.line, file=sys.stderr, flush=True)


def run_program(name, args, progress=True, ranks=None, mpirun=None, check=True, ok_codes=(0,), env=None, cwd=None,
                echo_stdout=True, progress_option=True):
    """Run olive program name with args; return Completed.

    progress: True prints the program's progress lines (and warnings) on
    sys.stderr as they come, and its stdout (a summary line) on sys.stdout
    unless echo_stdout is False; a callable gets a Progress per progress line;
    False or None passes nothing and shows nothing. progress_option=False
    leaves --progress out (for a mode of a program that does not take it). ranks > 1 runs the
    program under mpirun -np ranks. A status outside ok_codes raises
    OliveError with the program's message (check=False returns instead).
    """
    program = find_program(name)
    argv = [str(a) for a in args]
    if progress and progress_option:
        argv.append("--progress")
    cmd = (_mpirun(ranks, mpirun) if ranks and int(ranks) > 1 else []) + [program] + argv
    callback = _printer if progress is True else progress if callable(progress) else None
    err_lines = []
    out_chunks = []
    started = {}   # "proc": the program, once it runs
    ready = threading.Event()

    def lines(stream):
        """The program's stdout or stderr once it runs; nothing if it never started."""
        ready.wait()
        return getattr(started["proc"], stream) if "proc" in started else ()

    def read_err():
        for line in lines("stderr"):
            p = parse_progress(line)
            if p is not None:
                if callback:
                    callback(p)
                continue
            err_lines.append(line)
            if progress is True:
                sys.stderr.write(line)
                sys.stderr.flush()

    def read_out():
        for line in lines("stdout"):
            out_chunks.append(line)
            if progress is True and echo_stdout:
                sys.stdout.write(line)
                sys.stdout.flush()

    # The readers run and the signal handlers are in place before the program starts, so that a
    # SIGTERM from its start on is passed on: one between its start and the wait (seen on a busy
    # machine) had ended Python at once, leaving pyNN.olive's work directory behind.
    threads = [threading.Thread(target=read_err, daemon=True), threading.Thread(target=read_out, daemon=True)]
    for t in threads:
        t.start()
    with _ForwardTermination():
        early = None
        try:
            # a process group of its own: the terminal's Ctrl-C reaches it only as the one signal _wait passes on
            started["proc"] = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                               errors="replace", env=runtime.environment(program, env), cwd=cwd,
                                               start_new_session=True,
                                               preexec_fn=_die_with_parent if sys.platform.startswith("linux") else None)
        except (_Terminated, KeyboardInterrupt) as e:
            early = e
        finally:
            ready.set()
        if "proc" not in started:
            for t in threads:
                t.join()
            raise early   # (no program: a Popen cut short leaves a child that dies with this process)
        rc, stopped_by = _wait(started["proc"], early)
    for t in threads:
        t.join()
    done = Completed(cmd, rc, "".join(out_chunks), "".join(err_lines))
    if stopped_by is not None:
        if isinstance(stopped_by, KeyboardInterrupt) and rc != 0:
            raise OliveInterrupted(os.path.basename(program), rc, done.stderr, cmd) from None
        raise stopped_by
    if check and rc not in ok_codes:
        raise OliveError(os.path.basename(program), rc, done.stderr, cmd)
    return done


def _wait(proc, stopped_by=None):
    """(exit status, None), or (exit status, the exception) when one (Ctrl-C) came while waiting
    (or before: stopped_by).

    Then the program gets one SIGINT and is waited for: olive-simulate writes
    its output so far and a state to continue from, which a second signal
    would cut short. Only a further Ctrl-C here passes a second SIGINT on
    (olive-simulate, and mpirun, stop at once); a third kills it.
    """
    if stopped_by is None:
        try:
            return proc.wait(), None
        except BaseException as e:   # Ctrl-C above all: the program must not run on unwatched
            stopped_by = e
    first = stopped_by.signum if isinstance(stopped_by, _Terminated) else signal.SIGINT
    signals = iter((first, signal.SIGINT))
    while True:
        if proc.poll() is None:
            proc.send_signal(next(signals, signal.SIGKILL))
        try:
            return proc.wait(), stopped_by
        except (KeyboardInterrupt, _Terminated):
            continue
