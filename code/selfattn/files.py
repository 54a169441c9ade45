"""Writing a file so that whoever reads it sees the old file or the whole new one, never half."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import BinaryIO


def write_atomically(path: Path, write: Callable[[BinaryIO], object]) -> None:
    """Call ``write`` on a new file beside ``path``, then put that file in ``path``'s place at once.

    If ``write`` raises, ``path`` is left as it was and the new file is removed.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    try:
        with os.fdopen(fd, "wb") as file:
            write(file)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
