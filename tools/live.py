"""Read the book with live code on this machine (``make live``).

Builds the site into ``_build/live`` with Thebe pointed at a local Jupyter server, starts that
server on 127.0.0.1 with a random token and ``allow_origin`` set to the site's origin, serves
the site, and prints its URL. The token lives only in memory: the pages fetch it, with the
server's address, from ``/_live/server.json``, which this process answers itself. It is never
written to a file or printed.

    .venv/bin/python -m tools.live [--port 8000] [--output DIR] [--no-build]   # from the repository's root

With ``--no-build`` nothing is built: it serves the live build already in ``--output`` (by
default ``_build/live``, the last one ``make live`` made), or one made elsewhere by
``build_site``, such as the tests' one-chapter book.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import secrets
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from _ext.content.live_code import SERVER_INFO_ENV
from bookbuild import BUILD_RUNS, ROOT, site_of
from selfattn.run_cache import RUN_CACHE_ENV
from tools.serve import SERVER_INFO, serve


def build_site(
    output: Path,
    toc: Path | None = None,
    local_server: bool = True,
    quiet: bool = False,
    language: str | None = None,
) -> Path:
    """Build the book into ``output`` and return its HTML folder.

    With ``local_server`` the pages' live code asks this tool for a Jupyter server; without, it
    uses Binder, as the published site does. With ``language`` (``zh_CN``), that edition.
    """
    command = [sys.executable, "-m", "bookbuild.build", "--path-output", str(output)]
    command += ["--toc", str(toc)] if toc else []
    command += ["--language", language] if language else []
    env = {name: value for name, value in os.environ.items() if name != SERVER_INFO_ENV}
    if local_server:
        env[SERVER_INFO_ENV] = SERVER_INFO
    subprocess.run(command, check=True, cwd=ROOT, env=env, capture_output=quiet, text=True)
    return site_of(output)


@dataclass
class JupyterServer:
    base_url: str
    token: str
    process: subprocess.Popen


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _wait_until_up(server: JupyterServer, timeout: float) -> None:
    headers = {"Authorization": f"token {server.token}"}
    request = urllib.request.Request(server.base_url + "api/status", headers=headers)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if server.process.poll() is not None:
            raise RuntimeError(f"the Jupyter server exited with code {server.process.returncode}")
        with contextlib.suppress(OSError):
            with urllib.request.urlopen(request, timeout=2) as response:
                if response.status == 200:
                    return
        time.sleep(0.2)
    raise RuntimeError(f"the Jupyter server did not answer within {timeout:.0f} s")


@contextlib.contextmanager
def jupyter_server(
    origin: str, log: IO | None = None, timeout: float = 60, runs: Path | None = None
) -> Iterator[JupyterServer]:
    """A Jupyter server on 127.0.0.1 that accepts the site at ``origin``, with a random token.

    Its config, runtime, data and IPython folders are private and temporary, so ``~/.jupyter``
    is neither read nor written; the token reaches it through the environment. Its kernels keep
    trained runs in ``runs``, or, without it, in the reader's own cache, which the book's
    published runs fill (``selfattn.published``).
    """
    token = secrets.token_urlsafe(32)
    port = _free_port()
    with tempfile.TemporaryDirectory(prefix="selfattn-jupyter-") as private:
        env = {
            **os.environ,
            "JUPYTER_TOKEN": token,
            "JUPYTER_CONFIG_DIR": f"{private}/config",
            "JUPYTER_RUNTIME_DIR": f"{private}/runtime",
            "JUPYTER_DATA_DIR": f"{private}/data",
            "IPYTHONDIR": f"{private}/ipython",
        }
        env.pop(RUN_CACHE_ENV, None)
        env.update({RUN_CACHE_ENV: str(runs)} if runs else {})
        command = [
            sys.executable, "-m", "jupyter_server",
            "--ServerApp.ip=127.0.0.1",
            f"--ServerApp.port={port}",
            "--ServerApp.port_retries=0",
            "--ServerApp.open_browser=False",
            f"--ServerApp.root_dir={ROOT}",
            f"--ServerApp.allow_origin={origin}",
        ]  # fmt: skip
        if os.geteuid() == 0:
            command.append("--ServerApp.allow_root=True")
        # Its own session: Ctrl+C reaches this tool, which then stops the server cleanly.
        process = subprocess.Popen(command, env=env, stdout=log, stderr=log, cwd=ROOT, start_new_session=True)
        server = JupyterServer(f"http://127.0.0.1:{port}/", token, process)
        try:
            _wait_until_up(server, timeout)
            yield server
        finally:
            process.terminate()
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


def local_runs() -> Path | None:
    """The build's run cache when a build has trained into it, else None."""
    return BUILD_RUNS if any(BUILD_RUNS.glob("*.pt")) else None


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--port", type=int, default=0, help="port for the site (default: any free port)")
    parser.add_argument(
        "--output", type=Path, default=ROOT / "_build" / "live", help="build folder (default: _build/live)"
    )
    parser.add_argument(
        "--no-build",
        action="store_true",
        help="build nothing: serve the live build already in --output as it is",
    )
    args = parser.parse_args(argv)
    html = site_of(args.output)
    if args.no_build and not (html / "index.html").is_file():
        parser.error(f"--no-build: no live build in {args.output} (run once without --no-build)")

    for stop in (signal.SIGTERM, signal.SIGHUP):  # leave no server behind when killed
        signal.signal(stop, lambda *_: sys.exit(0))
    if not args.no_build:
        html = build_site(args.output)
    runs = local_runs()
    with serve(html, args.port) as site, jupyter_server(site.origin, runs=runs) as jupyter:
        site.point_at(jupyter.base_url, jupyter.token)
        where = f"the build's, in {runs}" if runs else "the book's published runs, kept in ~/.cache/selfattn"
        print(f"\nThe book with live code: {site.origin}/\nTrained models: {where}.", flush=True)
        print("Press Ctrl+C to stop.\n", flush=True)
        with contextlib.suppress(KeyboardInterrupt):
            threading.Event().wait()


if __name__ == "__main__":
    main()
