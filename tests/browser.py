"""Browser helpers shared by the figure and live-code tests: Debian's Chromium, offline.

The Chromium flags come from ``benchmarks/page_weight.py``, which the site crawl uses too.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "benchmarks"), str(ROOT / "tools"), str(ROOT / "_ext")]
from live_code import THEBE_VERSION  # noqa: E402
from page_weight import CHROMIUM, CHROMIUM_ARGS  # noqa: E402, F401

THEBE = ROOT / "node_modules" / "thebe"
UNPKG = re.compile(rf"https://unpkg\.com/thebe@{re.escape(THEBE_VERSION)}/lib/([\w.\-]+)$")
LOOPBACK_HOSTS = {"127.0.0.1", "localhost"}


def fetch_thebe() -> Path:
    """thebe's bundle from the npm registry, unpacked into node_modules/thebe (git-ignored)."""
    if not (THEBE / "lib" / "index.js").is_file():
        npm = shutil.which("npm")
        assert npm, "the live-code tests need npm to fetch thebe (apt-get install npm)"
        packed = THEBE.parent / f"thebe-{THEBE_VERSION}.tgz"
        THEBE.mkdir(parents=True, exist_ok=True)
        subprocess.run([npm, "pack", f"thebe@{THEBE_VERSION}", "--silent"], cwd=THEBE.parent, check=True)
        unpack = ["tar", "-xzf", packed.name, "-C", "thebe", "--strip-components=1"]
        subprocess.run(unpack, cwd=THEBE.parent, check=True)
        packed.unlink()
    assert f'"version": "{THEBE_VERSION}"' in (THEBE / "package.json").read_text()
    return THEBE / "lib"


def offline_context(browser, thebe_lib: Path | None = None):
    """A browser context where loopback passes, thebe comes from its npm package, the rest is aborted."""
    context = browser.new_context(viewport={"width": 1200, "height": 900})
    blocked: list[str] = []

    def route(request_route) -> None:
        url = request_route.request.url
        host = re.match(r"\w+://([^/:]+)", url)
        if host and host.group(1) in LOOPBACK_HOSTS:
            return request_route.continue_()
        match = UNPKG.match(url)
        if thebe_lib is not None and match and (thebe_lib / match.group(1)).is_file():
            kind = "text/css" if url.endswith(".css") else "application/javascript"
            return request_route.fulfill(path=str(thebe_lib / match.group(1)), content_type=kind)
        blocked.append(url)
        return request_route.abort()

    context.route("**/*", route)
    return context, blocked
