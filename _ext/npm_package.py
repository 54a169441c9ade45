"""A published npm package, fetched once by name and version and checked against its SHA-256.

The site serves a few browser libraries itself (thebe for live code, KaTeX's style sheet and
fonts for math). Nothing of them is committed: the first HTML build runs ``npm pack`` and keeps
the unpacked package under ``node_modules/.cache/<name>-<version>`` (git-ignored; later builds
reuse it). A tarball whose SHA-256 is not the one the book pins is refused and nothing is kept.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import subprocess
import tempfile
from pathlib import Path

CACHE = Path(__file__).resolve().parents[1] / "node_modules" / ".cache"


def npm_package(name: str, version: str, sha256: str, cache: Path | None = None) -> Path:
    """The unpacked package ``name@version`` (its root folder), fetched with npm on first use."""
    cache = cache or CACHE / f"{name}-{version}"
    if not (cache / "package.json").is_file():
        npm = shutil.which("npm")
        if npm is None:
            raise RuntimeError(f"fetching {name} {version} needs npm (apt-get install npm)")
        with tempfile.TemporaryDirectory() as tmp:
            command = [npm, "pack", f"{name}@{version}", "--silent"]
            subprocess.run(command, cwd=tmp, check=True, stdout=subprocess.DEVNULL)
            packed = Path(tmp) / f"{name}-{version}.tgz"
            digest = hashlib.sha256(packed.read_bytes()).hexdigest()
            if digest != sha256:
                raise RuntimeError(f"{packed.name} has SHA-256 {digest}, expected {sha256}")
            unpacked = Path(tmp) / "package"
            unpacked.mkdir()
            subprocess.run(
                ["tar", "-xzf", str(packed), "--strip-components=1", "-C", str(unpacked)], check=True
            )
            shutil.rmtree(cache, ignore_errors=True)
            cache.parent.mkdir(parents=True, exist_ok=True)
            shutil.move(str(unpacked), cache)
    if json.loads((cache / "package.json").read_text())["version"] != version:
        raise RuntimeError(f"{cache} does not hold {name} {version}; delete it to fetch again")
    return cache
