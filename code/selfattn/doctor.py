"""``python -m selfattn doctor``: this installation on one screen, to paste into a bug report.

Each line is "label: value": the package and the commit it was checked out at, the system, Python,
torch, the CPU kernels and threads torch computes with (against the book's pins:
:mod:`selfattn.arithmetic`, :mod:`selfattn.threads`), the GPUs it sees, the package's requirements
and ``requirements.lock``'s versions against the installed ones, where the data, the trained runs
and the published runs come from, and the language the package speaks. A probe that fails gives
its reason as its line's value: the report itself never fails.
"""

from __future__ import annotations

import os
import platform
import re
import subprocess
import sys
import warnings
from collections.abc import Callable
from importlib import metadata
from pathlib import Path

import torch
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

from selfattn import data, published, run_cache
from selfattn.arithmetic import PINNED, check
from selfattn.language import LANGUAGE_ENV, language, say, words
from selfattn.threads import ALL_CORES

DISTRIBUTION = "selfattn"  # the package's name in pyproject.toml
# The versions the book is built with: beside the package when it lies in the book's repository.
LOCK = run_cache.PACKAGE.parents[1] / "requirements.lock"
LOCKED = re.compile(r"^([A-Za-z0-9._-]+)==(\S+)", re.M)  # a pinned line of the lock: name==version


def commit() -> str:
    """The checked-out commit of the repository this package lies in, or "" outside one."""
    try:
        done = subprocess.run(
            ["git", "rev-parse", "HEAD"], cwd=run_cache.PACKAGE, capture_output=True, text=True, check=True
        )
    except (OSError, subprocess.CalledProcessError):
        return ""
    return done.stdout.strip()


def _package() -> str:
    version, found = metadata.version(DISTRIBUTION), commit()
    if found:
        return say("{name} {version}, commit {commit}", name=DISTRIBUTION, version=version, commit=found)
    return say("{name} {version}, not in a git checkout", name=DISTRIBUTION, version=version)


def _python() -> str:
    return f"{platform.python_version()} ({platform.python_implementation()}), {sys.executable}"


def _kernels() -> str:
    """The kernels torch computes with, and whether they are the ones the book pins."""
    running = torch.backends.cpu.get_cpu_capability()
    here = {name: os.environ.get(name, "") for name in PINNED}
    pins = ", ".join(f"{name}={value}" for name, value in here.items())
    if here != PINNED:
        book = ", ".join(f"{name}={value}" for name, value in PINNED.items())
        return say(
            "{running}, with {pins} set here: not the book's pins ({book})",
            running=running,
            pins=pins,
            book=book,
        )
    wanted = PINNED["ATEN_CPU_CAPABILITY"].upper()
    if running == wanted:
        return say("{running}, the book's pins hold ({pins})", running=running, pins=pins)
    with warnings.catch_warnings(record=True) as warned:  # check() warns on an x86 CPU only
        warnings.simplefilter("always")
        check(running)
    if warned:
        return say(
            "{running}, not the {wanted} kernels the book pins: torch computed before selfattn was "
            "imported, or this CPU has no {wanted}",
            running=running,
            wanted=wanted,
        )
    return say(
        "{running}: the book pins the kernels of x86 CPUs, and this one is {machine}",
        running=running,
        machine=platform.machine(),
    )


def _threads() -> str:
    now, cpus = torch.get_num_threads(), os.cpu_count()
    if now == 1:
        return say("one, the book's default; {all} for large steps ({cpus} CPUs)", all=ALL_CORES, cpus=cpus)
    return say(
        "{now}, not the book's one (set after selfattn was imported); {all} for large steps ({cpus} CPUs)",
        now=now,
        all=ALL_CORES,
        cpus=cpus,
    )


def _cuda() -> str:
    if torch.cuda.is_available():
        count = torch.cuda.device_count()
        names = ", ".join(torch.cuda.get_device_name(gpu) for gpu in range(count))
        return say("{count} GPU(s): {names}; CUDA {cuda}", count=count, names=names, cuda=torch.version.cuda)
    if torch.version.cuda:
        return say("no GPU seen (torch built for CUDA {cuda})", cuda=torch.version.cuda)
    return say("none (torch built without CUDA)")


def _mps() -> str:
    if torch.backends.mps.is_available():
        return say("available")
    return (
        say("built into torch, not available")
        if torch.backends.mps.is_built()
        else say("not built into torch")
    )


def _required() -> list[tuple[Requirement, str | None]]:
    """The package's requirements here (pyproject.toml's, as installed), each with the version
    installed, or None."""
    found = []
    for text in metadata.requires(DISTRIBUTION) or []:
        requirement = Requirement(text)
        if requirement.marker is not None and not requirement.marker.evaluate({"extra": ""}):
            continue
        try:
            found.append((requirement, metadata.version(requirement.name)))
        except metadata.PackageNotFoundError:
            found.append((requirement, None))
    return found


def _requirements() -> str:
    """Each requirement with its installed version, and whether every one holds."""
    shown, held = [], True
    for requirement, installed in _required():
        if installed is None:
            shown.append(say("{requirement} (not installed)", requirement=requirement))
        elif requirement.specifier.contains(installed, prereleases=True):
            shown.append(f"{requirement} ({installed})")
        else:
            shown.append(
                say("{requirement} ({installed}: outside it)", requirement=requirement, installed=installed)
            )
        held = held and installed is not None and requirement.specifier.contains(installed, prereleases=True)
    listed = ", ".join(shown)
    return say("all held: {listed}", listed=listed) if held else say("not all held: {listed}", listed=listed)


def _lock() -> str:
    """Whether the installed requirements are the versions the book is built with."""
    if not LOCK.is_file():
        return say("none here: the package is not in the book's repository")
    locked = {canonicalize_name(name): version for name, version in LOCKED.findall(LOCK.read_text("utf-8"))}
    differ = [
        say("{name} {installed}, locked {locked}", name=requirement.name, installed=installed, locked=want)
        for requirement, installed in _required()
        if (want := locked.get(canonicalize_name(requirement.name))) and installed != want
    ]
    if differ:
        return say("not the versions of {lock}: {differ}", lock=LOCK, differ="; ".join(differ))
    return say("the versions of {lock}", lock=LOCK)


def _data() -> str:
    folder, mirror = data.cache_dir(), os.environ.get(data.MIRROR_ENV)
    if not mirror:
        return say("{folder}, downloaded", folder=folder)
    if not Path(mirror).expanduser().is_dir():
        return say(
            "{folder}; the mirror {mirror} ({env}) is not a folder",
            folder=folder,
            mirror=mirror,
            env=data.MIRROR_ENV,
        )
    return say(
        "{folder}, from the mirror {mirror} ({env})", folder=folder, mirror=mirror, env=data.MIRROR_ENV
    )


def _run_cache() -> str:
    off = run_cache.turned_off()
    if off:
        return say("off ({env}={value})", env=off, value=os.environ[off])
    return str(run_cache.cache_folder())


def _published() -> str:
    if run_cache.cache_folder() is None:
        return say("none fetched: the run cache is off")
    url = published.address()
    if url is None:
        return say(
            "none fetched: {cache} makes the run cache a build's own, or {url} is set empty",
            cache=run_cache.RUN_CACHE_ENV,
            url=published.URL_ENV,
        )
    return url


def _language() -> str:
    return f"{language()} ({LANGUAGE_ENV}={os.environ.get(LANGUAGE_ENV, '')})"


# Each line's label and its probe, in the report's order. A label is said in the reader's language.
PROBES: tuple[tuple[str, Callable[[], str]], ...] = (
    (words("package"), _package),
    (words("system"), platform.platform),
    ("Python", _python),
    ("torch", lambda: torch.__version__),
    (words("CPU kernels"), _kernels),
    (words("CPU threads"), _threads),
    ("CUDA", _cuda),
    ("MPS", _mps),
    (words("requirements"), _requirements),
    (words("locked versions"), _lock),
    (words("data"), _data),
    (words("run cache"), _run_cache),
    (words("published runs"), _published),
    (words("language"), _language),
)


def _answer(probe: Callable[[], str]) -> str:
    try:
        return probe()
    except Exception as err:  # whatever it is, it belongs in the report, not in a traceback
        return say("could not tell ({error})", error=f"{type(err).__name__}: {err}")


def lines() -> list[str]:
    """The report: one "label: value" line a probe."""
    return [f"{say(label)}: {_answer(probe)}" for label, probe in PROBES]
