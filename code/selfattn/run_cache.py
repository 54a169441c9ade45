"""Train each model once: trained models and their histories, kept by everything they depend on.

:func:`selfattn.fit` looks in the run cache before training and saves what it trains there. The
book's build and tests name the folder in ``SELFATTN_RUN_CACHE`` (``_build/runs``); without it (a
reader's notebook) runs are kept in the reader's own cache, ``runs`` beside the downloads
(``~/.cache/selfattn/runs``), and a run missing there is asked of the book's published runs
(:mod:`selfattn.published`) before it trains. ``SELFATTN_NO_RUN_CACHE=1`` turns all of this off
(its old name, ``SELFATTN_NO_CACHE``, is still read until the next release); the scripts always
train. This is the run cache; the package's others are the downloads' (:mod:`selfattn.data`), the
keys and values of generation (:mod:`selfattn.kv_cache`) and, in the build, the executed chapters'.

A run's key is a hash of the model kind, the config, the data's checksum, torch's version and the
code (not the comments or docstrings) of every module that importing the training loop runs
(:func:`code_digest`), so a change to any of them trains afresh. The modules that keep and fetch
runs, and the one that names the book's runs, do not count (``LEFT_OUT``): they decide where a run
is kept and which runs there are, not what a run trains to (its own config is in its key).
Files are written atomically, and a process about to train a run first claims
its key (:func:`claimed`), so when two processes build at once (the book's
chapters execute in parallel) one trains and the other waits and loads.
"""

from __future__ import annotations

import ast
import hashlib
import os
import pickle
import sys
import zipfile
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import asdict
from functools import partial
from pathlib import Path

import torch

from selfattn.config import TrainConfig
from selfattn.data import TINY_SHAKESPEARE, cache_dir
from selfattn.files import write_atomically
from selfattn.language import say
from selfattn.poems import TEXT_SHA256

try:
    import fcntl
except ImportError:  # Windows: no claims; two processes may then train the same run
    fcntl = None

RUN_CACHE_ENV = "SELFATTN_RUN_CACHE"
OFF_ENV = "SELFATTN_NO_RUN_CACHE"
OLD_OFF_ENV = "SELFATTN_NO_CACHE"  # OFF_ENV's old name, read until the next release
PACKAGE = Path(__file__).resolve().parent
# What a trained model comes out as is decided by the code that importing this module runs.
TRAINING = "selfattn.training"
# Where a run is kept and fetched from, and which runs the book names: what a run's key leaves out.
LEFT_OUT = ("selfattn.run_cache", "selfattn.published", "selfattn.runs")
# Package data the modules read (their own files are the .py ones).
DATA_SUFFIXES = (".js", ".css")
# What reading a run file raises when it is not one: cut short, not a zip, or holding objects
# other than tensors and plain values (``torch.load(weights_only=True)`` refuses to build them).
UNREADABLE = (pickle.UnpicklingError, zipfile.BadZipFile, RuntimeError, EOFError, KeyError, ValueError)


def cache_folder() -> Path | None:
    """Where trained runs are kept (``SELFATTN_RUN_CACHE``, else the reader's own cache), or None
    when caching is off."""
    if turned_off():
        return None
    return Path(os.environ.get(RUN_CACHE_ENV) or cache_dir() / "runs")


def turned_off() -> str | None:
    """The variable that turns the run cache off (set to anything but "" or "0"), if one does."""
    return next((env for env in (OFF_ENV, OLD_OFF_ENV) if os.environ.get(env, "") not in ("", "0")), None)


def imported_modules(names: Iterable[str], package: Path = PACKAGE, skip: Iterable[str] = ()) -> list[Path]:
    """The files of the package that importing the modules ``names`` runs, sorted.

    Those modules, the package ``__init__`` files above them, and in turn every module of the
    package that any of them imports (``import selfattn.x``, ``from selfattn.x import y``, and
    ``from selfattn import x`` where ``x`` is a module). The modules named in ``skip`` are left
    out, with what only they import.
    """
    root = package.name
    found: set[Path] = set()
    todo = list(names)
    skipped = set(skip)
    while todo:
        name = todo.pop()
        parts = name.split(".")
        if parts[0] != root or any(".".join(parts[:depth]) in skipped for depth in range(2, len(parts) + 1)):
            continue  # not the package's, or a skipped module (``selfattn.x``) or a name in one
        for depth in range(1, len(parts) + 1):  # the packages above it run first
            folder = package.joinpath(*parts[1:depth])
            path = folder / "__init__.py" if folder.is_dir() else folder.with_suffix(".py")
            if path.is_file() and path not in found:
                found.add(path)
                todo.extend(imports_of(".".join(parts[:depth]), package))
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


def imports_of(name: str, package: Path = PACKAGE) -> list[str]:
    """The modules the package's module ``name`` imports, by name (:func:`imported_modules` reads
    the same)."""
    folder = package.joinpath(*name.split(".")[1:])
    return _imports(folder / "__init__.py" if folder.is_dir() else folder.with_suffix(".py"))


def every_module(package: Path = PACKAGE) -> list[str]:
    """The name of every module of the package."""
    return [
        ".".join((package.name, *path.relative_to(package).with_suffix("").parts)).removesuffix(".__init__")
        for path in sorted(package.rglob("*.py"))
    ]


def code_digest(names: Iterable[str], package: Path = PACKAGE, skip: Iterable[str] = ()) -> str:
    """A hash of the code that importing the modules ``names`` runs (:func:`imported_modules`,
    without ``skip``).

    Comments, docstrings and layout do not count. The files beside those modules that are not
    Python (the figures' script and style sheet) count byte for byte: the modules read them.
    """
    digest = hashlib.sha256()
    modules = imported_modules(names, package, skip)
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


def provenance(package: Path = PACKAGE) -> dict[str, str]:
    """What every run's key holds besides its kind and config: the checksum of the texts a run
    may read (tiny Shakespeare's and the Tang poems'), torch's version and the digest of the
    training code."""
    code = code_digest([TRAINING], package, skip=LEFT_OUT)
    data = hashlib.sha256(f"{TINY_SHAKESPEARE.sha256} {TEXT_SHA256}".encode()).hexdigest()
    return {"data": data, "torch": str(torch.__version__), "code": code}


def run_key(
    kind: str, config: TrainConfig, package: Path = PACKAGE, made: dict[str, str] | None = None
) -> str:
    """The cache key of one run: kind, config, data, torch and the training code, hashed (``made``:
    the :func:`provenance` already computed)."""
    made = made or provenance(package)
    parts = [kind, repr(config), made["data"], made["torch"], made["code"]]
    return hashlib.sha256("\n".join(parts).encode()).hexdigest()[:32]


def path(folder: Path, key: str) -> Path:
    """The file the run ``key`` is kept in, in ``folder``."""
    return folder / f"{key}.pt"


def has(folder: Path, key: str) -> bool:
    """Whether the run ``key`` is saved in ``folder``."""
    return path(folder, key).is_file()


def read(source) -> dict:
    """A run file's contents (a path, or a binary file), read without running any of its code:
    ``torch.load(weights_only=True)`` builds tensors and plain values only. Raises one of
    ``UNREADABLE`` for a file that is not a whole run."""
    run = torch.load(source, weights_only=True)
    if not isinstance(run, dict) or not {"state_dict", "history"} <= run.keys():
        raise ValueError(say("not a trained run (no state_dict and history in it)"))
    return run


def unreadable(err: BaseException) -> str:
    """One line on why :func:`read` refused a file (torch's own message runs to a paragraph, with
    advice to trust the file, which the book does not take)."""
    text = str(err)
    before, refused, why = text.partition("WeightsUnpickler error:")
    if refused:
        text = say(
            "torch.load(weights_only=True) refused it: {why}",
            why=why.split("Please")[0].split("Check the")[0],
        )
    return " ".join(text.split())[:300] or type(err).__name__


def load(folder: Path, key: str) -> dict | None:
    """The saved run (``state_dict``, ``history`` and ``made_by``), or None if there is none.

    A file that cannot be read as a run (cut short, or holding more than tensors and numbers)
    is removed, after one line that says so: the run then trains again.
    """
    if not has(folder, key):
        return None
    file = path(folder, key)
    try:
        return read(file)
    except UNREADABLE as err:
        print(
            say(
                "Cannot read the saved run {file} ({why}): removed, it trains again.",
                file=file,
                why=unreadable(err),
            ),
            file=sys.stderr,
        )
        file.unlink(missing_ok=True)
        return None


def made_by(kind: str, config: TrainConfig, made: dict[str, str] | None = None) -> dict:
    """What a saved run records of how it was made: its kind and config, and its provenance
    (``made``: one already known, by default this code's, :func:`provenance`)."""
    return {"kind": kind, "config": asdict(config), **(made or provenance())}


def save(folder: Path, key: str, model: torch.nn.Module, history, made: dict) -> None:
    """Write the run atomically: weights, history and how it was made (``made_by``)."""
    run = {"state_dict": model.state_dict(), "history": asdict(history), "made_by": made}
    write_atomically(path(folder, key), partial(torch.save, run))


@contextmanager
def claimed(folder: Path, key: str) -> Iterator[None]:
    """Hold the key's lock inside the block: another process claiming it waits until we leave."""
    folder.mkdir(parents=True, exist_ok=True)
    with open(folder / f".{key}.lock", "w", encoding="utf-8") as lock:
        if fcntl is not None:
            fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes
        yield
