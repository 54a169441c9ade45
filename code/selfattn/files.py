"""Writing a file so that whoever reads it sees the old file or the whole new one, never half.

The new file is written beside the old one under a temporary name that holds the writer's process
id, synced to disk, and renamed over the old one; then the folder is synced, so that the rename
survives a power cut too. A writer killed mid-way leaves its temporary behind:
:func:`remove_stale_temporaries` clears those of writers that have gone.
"""

from __future__ import annotations

import os
import re
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import BinaryIO

# ".<name>.<pid>.<random>.tmp": what write_atomically names its temporaries.
TEMPORARY = re.compile(r"\..+\.(?P<pid>\d+)\.[a-z0-9_]+\.tmp")


def write_atomically(path: Path, write: Callable[[BinaryIO], object]) -> None:
    """Call ``write`` on a new file beside ``path``, then put that file in ``path``'s place at once.

    If ``write`` raises, ``path`` is left as it was and the new file is removed.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.{os.getpid()}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as file:
            write(file)
            file.flush()
            os.fsync(file.fileno())  # the data is on disk before the name points at it
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    _sync_folder(path.parent)


def _sync_folder(folder: Path) -> None:
    """Put the folder's entries (a rename in it) on disk; where a folder cannot be opened (Windows),
    the system does it in its own time."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def remove_stale_temporaries(folder: Path) -> None:
    """Remove the temporaries :func:`write_atomically` left in ``folder`` when its writer was killed
    mid-way; a writer that is still running keeps its own. Only on POSIX, which tells whether a
    process is alive; elsewhere they are left."""
    if os.name != "posix" or not folder.is_dir():
        return
    for path in folder.iterdir():
        match = TEMPORARY.fullmatch(path.name)
        if match and not _alive(int(match["pid"])):
            path.unlink(missing_ok=True)


def _alive(pid: int) -> bool:
    """Whether the process ``pid`` is running (on POSIX: signal 0 checks, and sends nothing)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # it runs, as another user's process
        pass
    return True
