"""The exceptions of the olive package.

Two kinds of failure need telling apart by callers: a file that is not what
docs/FORMAT.md describes (FormatError, a ValueError, raised by the readers
with the file, the object and the fault in its message), and a program that
exited with an error (OliveError, carrying the program's own message, exit
status and command line, so that a notebook shows what olive said). Ctrl-C
while a program runs raises OliveInterrupted, a KeyboardInterrupt (so that
`except Exception` does not swallow it) carrying what the program said.
"""


class FormatError(ValueError):
    """A file does not follow docs/FORMAT.md; the message names file, object and fault."""

    def __init__(self, path, what):
        self.path = str(path)
        self.fault = what
        super().__init__(f"{path}: {what}")


class OliveError(RuntimeError):
    """An olive program failed.

    Attributes: program (its name), returncode, message (the lines it printed
    as 'PROGRAM: error: ...', or its last stderr line), stderr (all of it) and
    command (the argument list that was run).
    """

    def __init__(self, program, returncode, stderr, command):
        self.program = program
        self.returncode = returncode
        self.stderr = stderr
        self.command = list(command)
        errors = [line.strip() for line in stderr.splitlines() if ": error: " in line]
        self.message = "\n".join(errors) or _other_message(stderr, returncode)
        super().__init__(f"{program} failed (exit status {returncode}): {self.message}")


class OliveInterrupted(KeyboardInterrupt):
    """Ctrl-C stopped an olive program (programs.py passed it one SIGINT and waited).

    Attributes as OliveError's: program, returncode (130 when olive-simulate
    stopped cleanly), message (its 'stopped by SIGINT after step K ...; continue
    with --restart OUT/state.h5' line, or the gist of what it printed), stderr,
    command; and state: the state file to continue from (olive.simulate sets
    it when OUT/state.h5 is there), else None.
    """

    def __init__(self, program, returncode, stderr, command, state=None):
        self.program = program
        self.returncode = returncode
        self.stderr = stderr
        self.command = list(command)
        self.state = state
        stops = [line.strip() for line in stderr.splitlines() if ": stopped by " in line]
        self.message = stops[-1] if stops else _other_message(stderr, returncode)
        super().__init__(f"{program} interrupted (exit status {returncode}): {self.message}")


class ProgramNotFound(FileNotFoundError):
    """An olive program is not installed where the package looked for it."""


def _other_message(stderr, returncode):
    """The gist of a failure that olive did not word (mpirun, a crash): the text of its last block.

    mpirun frames its messages in lines of dashes; its first line says what
    went wrong. Otherwise the last line with text in it is the best guess.
    """
    blocks, current, framed = [], [], False
    for line in stderr.splitlines():
        if line.strip() and set(line.strip()) <= set("-=*"):
            framed = True
            blocks.append(current)
            current = []
        elif any(c.isalnum() for c in line):
            current.append(line.strip())
    blocks.append(current)
    blocks = [b for b in blocks if b]
    if not blocks:
        return f"exited with status {returncode} and printed nothing"
    return blocks[-1][0] if framed else blocks[-1][-1]
