"""The package and the chapter scripts (``code/``) run alike on Windows: every text file they open
names its encoding (without one Python takes the locale's, cp1252 or cp936 on Windows, not
UTF-8), a module only POSIX systems have is imported with a fallback, and nothing runs a shell.

The checks read the code with ``ast``. A call named ``open`` (``open``, ``Path.open``; ``os.open``,
which opens a file descriptor, aside), ``read_text`` or ``write_text`` is a text file's unless its
mode is a binary one ("rb", "wb", ...); it names its encoding as ``encoding=`` or in its place
among the arguments.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from bookbuild import ROOT

CODE = ROOT / "code"
# Standard modules Windows lacks.
POSIX_ONLY = {"fcntl", "grp", "pwd", "resource", "termios"}
SHELLS = {"sh", "bash", "/bin/sh", "/bin/bash"}
# The calls that open a text file: the index of their mode and of their encoding among the
# positional arguments (None: the call takes no mode).
OPENS = {"open": (1, 3), "Path.open": (0, 2), "read_text": (None, 0), "write_text": (None, 1)}


def code_files() -> list[Path]:
    files = sorted(CODE.rglob("*.py"))
    assert files and CODE / "01_bigram.py" in files, CODE
    return files


def opener(call: ast.Call) -> str | None:
    """Which kind of ``OPENS`` the call is, or None for any other call."""
    func = call.func
    if isinstance(func, ast.Name) and func.id == "open":
        return "open"
    if not isinstance(func, ast.Attribute):
        return None
    if func.attr == "open":
        # os.open takes flags, not a mode; tarfile.open reads an archive, always in binary
        module = func.value.id if isinstance(func.value, ast.Name) else None
        return None if module in ("os", "tarfile") else "Path.open"
    return func.attr if func.attr in OPENS else None


def binary(call: ast.Call, position: int | None) -> bool:
    """Whether the call's mode, written out as a string, opens the file in binary."""
    modes = [k.value for k in call.keywords if k.arg == "mode"]
    if position is not None and len(call.args) > position:
        modes.append(call.args[position])
    return any(isinstance(mode, ast.Constant) and "b" in str(mode.value) for mode in modes)


def text_files_without_encoding(source: str) -> Iterator[tuple[int, str]]:
    """Each call of ``source`` that opens a text file and names no encoding: its line and its code."""
    for node in ast.walk(ast.parse(source)):
        kind = opener(node) if isinstance(node, ast.Call) else None
        if kind is None:
            continue
        mode, encoding = OPENS[kind]
        named = any(k.arg == "encoding" for k in node.keywords) or len(node.args) > encoding
        if not named and not binary(node, mode):
            yield node.lineno, ast.unparse(node)


def fallbacks(tree: ast.Module) -> set[ast.AST]:
    """The nodes of ``tree`` inside a ``try`` that catches ImportError: imports with a fallback."""
    guarded = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Try):
            caught = {
                n.id for h in node.handlers if h.type for n in ast.walk(h.type) if isinstance(n, ast.Name)
            }
            if caught & {"ImportError", "ModuleNotFoundError"}:
                guarded |= {n for statement in node.body for n in ast.walk(statement)}
    return guarded


def runs_a_shell(call: ast.Call) -> bool:
    """Whether the call runs a shell: ``shell=True``, ``os.system``/``os.popen``, or a command that
    starts with sh or bash."""
    shell = any(
        k.arg == "shell" and not (isinstance(k.value, ast.Constant) and not k.value.value)
        for k in call.keywords
    )
    func = call.func
    system = isinstance(func, ast.Attribute) and ast.unparse(func) in ("os.system", "os.popen")
    command = call.args[0] if call.args else None
    words = command.elts if isinstance(command, ast.List | ast.Tuple) else []
    return (
        shell or system or (bool(words) and isinstance(words[0], ast.Constant) and words[0].value in SHELLS)
    )


def posix_only(source: str) -> Iterator[tuple[int, str]]:
    """Each import of a POSIX-only module in ``source`` without a fallback, and each shell it runs."""
    tree = ast.parse(source)
    guarded = fallbacks(tree)
    for node in ast.walk(tree):
        if isinstance(node, ast.Import | ast.ImportFrom) and node not in guarded:
            names = (
                [alias.name for alias in node.names] if isinstance(node, ast.Import) else [node.module or ""]
            )
            if any(name.split(".")[0] in POSIX_ONLY for name in names):
                yield node.lineno, ast.unparse(node)
        elif isinstance(node, ast.Call) and runs_a_shell(node):
            yield node.lineno, ast.unparse(node)


def where(check: Callable[[str], Iterator[tuple[int, str]]], files: list[Path]) -> list[str]:
    """What ``check`` finds in ``files``, each as ``file:line: code``."""
    return [
        f"{path.relative_to(ROOT)}:{line}: {code}"
        for path in files
        for line, code in check(path.read_text(encoding="utf-8"))
    ]


def test_every_text_file_the_code_opens_names_its_encoding():
    found = where(text_files_without_encoding, code_files())
    assert not found, 'name the encoding (encoding="utf-8"), or open the file in binary:\n' + "\n".join(found)


def test_the_code_needs_no_posix_only_module_or_shell():
    found = where(posix_only, code_files())
    assert not found, "import these in try/except ImportError with a fallback; run no shell:\n" + "\n".join(
        found
    )


@pytest.mark.parametrize(
    ("source", "flagged"),
    [
        ('open(p, "w")', True),
        ('open(p, "w", encoding="utf-8")', False),
        ('open(p, "rb")', False),
        ('open(p, mode="wb")', False),
        ("p.open()", True),
        ('p.open("rb")', False),
        ('p.open("r", -1, "utf-8")', False),
        ("os.open(p, os.O_RDONLY)", False),
        ("p.read_text()", True),
        ('p.read_text("utf-8")', False),
        ("p.write_text(text)", True),
        ('p.write_text(text, encoding="utf-8")', False),
        ("p.read_bytes()", False),
    ],
)
def test_the_encoding_check_tells_text_files_without_one(source, flagged):
    assert bool(list(text_files_without_encoding(source))) == flagged


@pytest.mark.parametrize(
    ("source", "flagged"),
    [
        ("import fcntl", True),
        ("try:\n    import fcntl\nexcept ImportError:\n    fcntl = None", False),
        ("try:\n    import fcntl\nexcept OSError:\n    fcntl = None", True),
        ("try:\n    import fcntl\nexcept:\n    fcntl = None", True),
        ("from termios import tcgetattr", True),
        ('subprocess.run("ls", shell=True)', True),
        ('subprocess.run(["bash", "-c", "ls"])', True),
        ('os.system("ls")', True),
        ("platform.system()", False),
        ('subprocess.run(["git", "rev-parse", "HEAD"], shell=False)', False),
    ],
)
def test_the_posix_check_tells_what_windows_lacks(source, flagged):
    assert bool(list(posix_only(source))) == flagged
