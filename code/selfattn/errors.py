"""The errors a reader can cause, each with the way out in its message.

Everything the package raises because of what a reader typed or has on disk
(a hyperparameter, a text to tokenize, a figure's input, a missing data file)
is a :class:`ReaderError`. In a notebook, ``%load_ext selfattn.notebook_errors``
shows these as one line instead of a traceback; anything else is a bug and keeps
its traceback.
"""

from __future__ import annotations


class ReaderError(Exception):
    """A problem the reader can fix; the message names it and says how."""


class ConfigError(ReaderError, ValueError):
    """A hyperparameter or an argument with a value the book cannot use."""


class DataError(ReaderError, RuntimeError):
    """A data file that is missing, cannot be downloaded, or is corrupt."""
