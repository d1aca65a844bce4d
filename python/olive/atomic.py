"""Atomic creation of output files, as olive's own writers do it.

A file is written under a temporary name in the same directory
(NAME.tmp-PID-N, the pattern olive uses and its .gitignore expects),
flushed to the disk, and only then given its final name, so a file with the
final name is always whole. Without force an existing file is never
replaced: the final name is claimed with a hard link, which fails atomically
when someone else created the name meanwhile.
"""

import contextlib
import itertools
import os

_counter = itertools.count()


def _fsync(path):
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _fsync_dir(directory):
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


@contextlib.contextmanager
def atomic_output(path, force=False, suffix=""):
    """Yield a temporary path to write; on success it becomes path, on failure it is removed.

    suffix ends the temporary name for writers that look at the extension
    (pynwb warns about a file not ending in .nwb).

    Raises FileExistsError before anything is written when path exists and
    force is False, and again at the end if it appeared in the meantime.
    """
    path = os.fspath(path)
    directory = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(directory):
        raise FileNotFoundError(f"{path}: the directory {directory} does not exist")
    if os.path.lexists(path):
        if not force:
            raise FileExistsError(f"{path}: exists; pass force=True to replace it")
        if os.path.isdir(path) and not os.path.islink(path):
            raise IsADirectoryError(f"{path}: is a directory; olive replaces only files")
    tmp = f"{path}.tmp-{os.getpid()}-{next(_counter)}{suffix}"
    try:
        yield tmp
        _fsync(tmp)
        if force:
            os.replace(tmp, path)
        else:
            try:
                os.link(tmp, path)
            except FileExistsError:
                raise FileExistsError(f"{path}: was created by someone else while it was written; "
                                      "pass force=True to replace it") from None
            except OSError:
                # A file system without hard links: check, then rename.
                if os.path.lexists(path):
                    raise FileExistsError(f"{path}: exists; pass force=True to replace it") from None
                os.rename(tmp, path)
            else:
                os.unlink(tmp)
        _fsync_dir(directory)
    finally:
        if os.path.lexists(tmp):
            os.unlink(tmp)
