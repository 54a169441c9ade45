"""Train each model once: trained models and their histories, kept by everything they depend on.

When ``SELFATTN_RUN_CACHE`` names a folder (the book's build and tests set it to
``_build/runs``), :func:`selfattn.fit` looks there before training and saves
what it trains. A run's key is a hash of the model kind, the config, the data's
checksum, torch's version and the code (not the comments or docstrings) of every
module that importing the training loop runs (:func:`code_digest`), so a change to any of them
trains afresh.
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
from collections.abc import Iterable, Iterator
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
# What a trained model comes out as is decided by the code that importing this module runs.
TRAINING = "selfattn.training"
# Package data the modules read (their own files are the .py ones).
DATA_SUFFIXES = (".js", ".css")


def cache_folder() -> Path | None:
    """Where trained runs are kept, or None when caching is off."""
    folder = os.environ.get(CACHE_ENV)
    if not folder or os.environ.get(OFF_ENV, "") not in ("", "0"):
        return None
    return Path(folder)


def imported_modules(names: Iterable[str], package: Path = PACKAGE) -> list[Path]:
    """The files of the package that importing the modules ``names`` runs, sorted.

    Those modules, the package ``__init__`` files above them, and in turn every module of the
    package that any of them imports (``import selfattn.x``, ``from selfattn.x import y``, and
    ``from selfattn import x`` where ``x`` is a module).
    """
    root = package.name
    found: set[Path] = set()
    todo = list(names)
    while todo:
        parts = todo.pop().split(".")
        if parts[0] != root:
            continue
        for depth in range(1, len(parts) + 1):  # the packages above it run first
            folder = package.joinpath(*parts[1:depth])
            path = folder / "__init__.py" if folder.is_dir() else folder.with_suffix(".py")
            if path.is_file() and path not in found:
                found.add(path)
                todo.extend(_imports(path))
    return sorted(found)


def _imports(path: Path) -> list[str]:
    """The modules ``path`` imports, by name (``from a import b`` offers ``a`` and ``a.b``)."""
    names = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names += [node.module, *(f"{node.module}.{alias.name}" for alias in node.names)]
    return names


def every_module(package: Path = PACKAGE) -> list[str]:
    """The name of every module of the package."""
    return [
        ".".join((package.name, *path.relative_to(package).with_suffix("").parts)).removesuffix(".__init__")
        for path in sorted(package.rglob("*.py"))
    ]


def code_digest(names: Iterable[str], package: Path = PACKAGE) -> str:
    """A hash of the code that importing the modules ``names`` runs (:func:`imported_modules`).

    Comments, docstrings and layout do not count. The files beside those modules that are not
    Python (the figures' script and style sheet) count byte for byte: the modules read them.
    """
    digest = hashlib.sha256()
    modules = imported_modules(names, package)
    for path in modules:
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            body = getattr(node, "body", None)
            if isinstance(body, list) and body and _is_docstring(body[0]):
                node.body = body[1:] or [ast.Pass()]
        digest.update(_name(path, package) + ast.dump(tree).encode() + b"\0")
    for folder in sorted({path.parent for path in modules}):
        for data in sorted(p for p in folder.iterdir() if p.is_file() and p.suffix in DATA_SUFFIXES):
            digest.update(_name(data, package) + data.read_bytes() + b"\0")
    return digest.hexdigest()


def _name(path: Path, package: Path) -> bytes:
    return str(path.relative_to(package)).encode() + b"\0"


def _is_docstring(node: ast.AST) -> bool:
    return (
        isinstance(node, ast.Expr)
        and isinstance(node.value, ast.Constant)
        and isinstance(node.value.value, str)
    )


def run_key(kind: str, config: TrainConfig, package: Path = PACKAGE) -> str:
    """The cache key of one run: kind, config, data, torch and the training code, hashed."""
    parts = [kind, repr(config), TINY_SHAKESPEARE.sha256, torch.__version__, code_digest([TRAINING], package)]
    return hashlib.sha256("\n".join(parts).encode()).hexdigest()[:32]


def _path(folder: Path, key: str) -> Path:
    return folder / f"{key}.pt"


def has(folder: Path, key: str) -> bool:
    """Whether the run ``key`` is saved in ``folder``."""
    return _path(folder, key).is_file()


def load(folder: Path, key: str) -> dict | None:
    """The saved run (``state_dict`` and ``history``), or None if there is none."""
    if not has(folder, key):
        return None
    return torch.load(_path(folder, key), weights_only=True)


def save(folder: Path, key: str, model: torch.nn.Module, history) -> None:
    """Write the run atomically (:func:`save_atomically`)."""
    save_atomically({"state_dict": model.state_dict(), "history": asdict(history)}, _path(folder, key))


def save_atomically(obj: object, path: Path) -> None:
    """``torch.save`` ``obj`` to ``path`` so that a reader sees the old file or the whole new one."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.stem}.")
    os.close(fd)
    try:
        torch.save(obj, tmp)
        os.replace(tmp, path)
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
