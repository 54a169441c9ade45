"""The locked environment: requirements.lock (pip) and package-lock.json (npm), which make installs.

requirements.txt and package.json say what the book needs; the locks hold one version of every
package, with its hash, and must stay in step with them.
"""

from __future__ import annotations

import json
import re

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from packaging.version import Version

from _ext.npm_dependency import npm_dependency
from bookbuild import ROOT
from tests.helpers import locked_versions

LOCK = ROOT / "requirements.lock"
PYTORCH_CPU_INDEX = "https://download.pytorch.org/whl/cpu"


def requirements() -> list[Requirement]:
    """requirements.txt's requirements, without options (``-e .``, index URLs) and comments."""
    lines = (line.split("#")[0].strip() for line in (ROOT / "requirements.txt").read_text().splitlines())
    return [Requirement(line) for line in lines if line and not line.startswith("-")]


def lock_entries() -> dict[str, str]:
    """Each pinned package's block of lines in the lock (its hashes, its ``# via`` comments)."""
    blocks = re.split(r"\n(?=[A-Za-z0-9])", LOCK.read_text())
    return {canonicalize_name(block.split("==")[0]): block for block in blocks if "==" in block.split()[0]}


def test_lock_pins_every_requirement_at_a_version_it_allows():
    locked = locked_versions()
    wrong = {}
    for requirement in requirements():
        pinned = locked.get(canonicalize_name(requirement.name))
        if pinned is None or not requirement.specifier.contains(Version(pinned), prereleases=True):
            wrong[requirement.name] = f"requires {requirement.specifier or 'any'}, locked {pinned}"
    assert not wrong, f"run make lock: requirements.lock is behind requirements.txt: {wrong}"


def test_every_locked_package_has_a_hash_and_the_package_itself_is_left_out():
    entries = lock_entries()
    assert entries and all("--hash=sha256:" in block for block in entries.values())
    text = LOCK.read_text()
    assert not re.search(r"^\s*(-e|--editable)\b", text, flags=re.M), "pip takes no -e under --require-hashes"
    assert "selfattn" not in entries, "make installs the package itself afterwards (--no-deps -e .)"


def test_lock_holds_pytorchs_cpu_wheel_and_nothing_of_cuda():
    text = LOCK.read_text()
    assert not re.search(r"^--[a-z-]*index-url", text, flags=re.M), (
        "make adds PyTorch's index where reachable"
    )
    assert f"PYTORCH_CPU_INDEX := {PYTORCH_CPU_INDEX}" in (ROOT / "Makefile").read_text()
    assert locked_versions()["torch"].endswith("+cpu")
    cuda = [name for name in locked_versions() if name.startswith(("nvidia-", "triton", "cuda-"))]
    assert not cuda, f"CUDA packages in the lock: {cuda}"
    assert "file:" not in text and "/opt/" not in text, "no index or wheel folder of one machine"


def test_lock_is_for_linux_x86_64_cpython_3_11():
    """Hashes are for the files pip picks on the book's platform (Binder's runtime.txt too)."""
    header = LOCK.read_text().split("\n\n")[0]
    assert "Linux x86_64" in header and "Python 3.11" in header
    assert (ROOT / "binder" / "runtime.txt").read_text().strip() == "python-3.11"


def test_package_lock_holds_every_package_at_the_version_package_json_names():
    package = json.loads((ROOT / "package.json").read_text())
    lock = json.loads((ROOT / "package-lock.json").read_text())
    assert lock["packages"][""]["dependencies"] == package["dependencies"]
    assert lock["packages"][""]["devDependencies"] == package["devDependencies"]
    for name, version in {**package["dependencies"], **package["devDependencies"]}.items():
        entry = lock["packages"][f"node_modules/{name}"]
        assert entry["version"] == version and entry["integrity"].startswith("sha512-")


def test_package_lock_leaves_out_thebes_own_dependencies():
    """The site serves thebe's prebuilt bundle only; its declared dependencies (about 1,000 npm
    packages, 600 MB) are replaced by an empty package (package.json, overrides)."""
    lock = json.loads((ROOT / "package-lock.json").read_text())
    for name in lock["packages"]["node_modules/thebe"]["dependencies"]:
        assert lock["packages"][f"node_modules/{name}"] == {"resolved": "tools/npm-empty", "link": True}
    site = [key for key, entry in lock["packages"].items() if key and not entry.get("dev")]
    assert len(site) < 20, site  # what the site and the build use; thebe's own would be ~1,000 more
    downloaded = [
        e for key, e in lock["packages"].items() if key.startswith("node_modules/") and not e.get("link")
    ]
    assert all(entry["integrity"].startswith("sha512-") for entry in downloaded), "npm checks each download"


def test_a_missing_or_other_npm_package_stops_the_build_naming_make_install(tmp_path):
    (tmp_path / "package.json").write_text(json.dumps({"dependencies": {"thebe": "0.9.3"}}))
    with pytest.raises(RuntimeError, match=r"thebe 0\.9\.3 is not installed .*run `make install`"):
        npm_dependency("thebe", tmp_path)
    installed = tmp_path / "node_modules" / "thebe"
    installed.mkdir(parents=True)
    (installed / "package.json").write_text(json.dumps({"name": "thebe", "version": "0.9.2"}))
    with pytest.raises(
        RuntimeError, match=r"holds thebe 0\.9\.2, but package\.json pins 0\.9\.3: run `make install`"
    ):
        npm_dependency("thebe", tmp_path)
    (installed / "package.json").write_text(json.dumps({"name": "thebe", "version": "0.9.3"}))
    assert npm_dependency("thebe", tmp_path) == installed


def test_a_build_tool_is_found_among_the_dev_dependencies(tmp_path):
    """PurgeCSS runs while the book is built but is not served, so package.json lists it as a
    devDependency; the build reads its pinned version from there."""
    (tmp_path / "package.json").write_text(
        json.dumps({"dependencies": {"thebe": "0.9.3"}, "devDependencies": {"purgecss": "8.0.0"}})
    )
    installed = tmp_path / "node_modules" / "purgecss"
    installed.mkdir(parents=True)
    (installed / "package.json").write_text(json.dumps({"name": "purgecss", "version": "7.0.2"}))
    with pytest.raises(RuntimeError, match=r"holds purgecss 7\.0\.2, but package\.json pins 8\.0\.0"):
        npm_dependency("purgecss", tmp_path)
    (installed / "package.json").write_text(json.dumps({"name": "purgecss", "version": "8.0.0"}))
    assert npm_dependency("purgecss", tmp_path) == installed
