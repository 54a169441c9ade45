"""Train each model once: trained models and their histories, kept by everything they depend on.

When ``SELFATTN_RUN_CACHE`` names a folder (the book's build and tests set it to
``_build/runs``), :func:`selfattn.fit` looks there before training and saves
what it trains. A run's key is a hash of the model kind, the config, the data's
checksum, torch's version and the code (not the comments or docstrings) of every
module that builds or trains a model, so a change to any of them trains afresh.
Files are written atomically, and a process about to train a run first claims
its key (:func:`claimed`), so when two processes build at once (the book's
chapters execute in parallel) one trains and the other waits and loads.
``SELFATTN_NO_CACHE=1`` turns the cache off; without the variable (a reader's
notebook) nothing is cached, and the scripts always train.
"""

from __future__ import annotations

import ast
import hashlib
import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import asdict
from pathlib import Path

import torch

from selfattn.config import TrainConfig
from selfattn.data import TINY_SHAKESPEARE

try:
    import fcntl
except ImportError:  # Windows: no claims; two processes may then train the same run
    fcntl = None

CACHE_ENV = "SELFATTN_RUN_CACHE"
OFF_ENV = "SELFATTN_NO_CACHE"
PACKAGE = Path(__file__).resolve().parent
# The modules whose source decides what a trained model comes out as.
SOURCES = [
    PACKAGE / name
    for name in (
        "batches.py",
        "config.py",
        "corpus.py",
        "gpt.py",
        "models.py",
        "settings.py",
        "tokenizers.py",
        "training.py",
    )
]


def cache_folder() -> Path | None:
    """Where trained runs are kept, or None when caching is off."""
    folder = os.environ.get(CACHE_ENV)
    if not folder or os.environ.get(OFF_ENV, "") not in ("", "0"):
        return None
    return Path(folder)


def source_digest(paths: list[Path]) -> str:
    """A hash of the files' code: comments, docstrings and layout do not count."""
    digest = hashlib.sha256()
    for path in paths:
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            body = getattr(node, "body", None)
            if isinstance(body, list) and body and _is_docstring(body[0]):
                node.body = body[1:] or [ast.Pass()]
        digest.update(path.name.encode() + b"\0" + ast.dump(tree).encode() + b"\0")
    return digest.hexdigest()


def _is_docstring(node: ast.AST) -> bool:
    return (
        isinstance(node, ast.Expr)
        and isinstance(node.value, ast.Constant)
        and isinstance(node.value.value, str)
    )


def run_key(kind: str, config: TrainConfig, sources: list[Path] = SOURCES) -> str:
    """The cache key of one run: kind, config, data, torch and source, hashed."""
    parts = [kind, repr(config), TINY_SHAKESPEARE.sha256, torch.__version__, source_digest(sources)]
    return hashlib.sha256("\n".join(parts).encode()).hexdigest()[:32]


def load(folder: Path, key: str) -> dict | None:
    """The saved run (``state_dict`` and ``history``), or None if there is none."""
    path = folder / f"{key}.pt"
    if not path.is_file():
        return None
    return torch.load(path, weights_only=True)


def save(folder: Path, key: str, model: torch.nn.Module, history) -> None:
    """Write the run atomically: a reader sees the old file or the whole new one."""
    folder.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=folder, prefix=f".{key}.")
    os.close(fd)
    try:
        torch.save({"state_dict": model.state_dict(), "history": asdict(history)}, tmp)
        os.replace(tmp, folder / f"{key}.pt")
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


@contextmanager
def claimed(folder: Path, key: str) -> Iterator[None]:
    """Hold the key's lock inside the block: another process claiming it waits until we leave."""
    folder.mkdir(parents=True, exist_ok=True)
    with open(folder / f".{key}.lock", "w") as lock:
        if fcntl is not None:
            fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes
        yield
