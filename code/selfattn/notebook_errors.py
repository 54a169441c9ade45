"""The package's reader errors, shown in a notebook as one clear line instead of a traceback.

A ``ReaderError`` (``ConfigError``, ``DataError``) already says what is wrong and how to fix
it; the stack of frames above it only hides that. Load with ``%load_ext selfattn.notebook_errors``
(the book's live pages do this in every new kernel).
"""

from __future__ import annotations

from types import TracebackType

from selfattn.errors import ReaderError

RED, RESET = "\x1b[0;31m", "\x1b[0m"


def one_line(shell, etype: type[BaseException], value: BaseException, tb: TracebackType, tb_offset=None):
    """IPython custom-exception handler: show ``Name: message`` and nothing else."""
    line = f"{RED}{etype.__name__}{RESET}: {value}"
    shell._showtraceback(etype, value, [line])
    return [line]


def load_ipython_extension(ipython) -> None:
    ipython.set_custom_exc((ReaderError,), one_line)


def unload_ipython_extension(ipython) -> None:
    ipython.set_custom_exc((), None)
