"""A built site served on a loopback port, as a static host serves it.

The server also answers ``/_live/server.json`` from memory once pointed at a Jupyter server:
the pages' live code reads that server's address and token there (``live_code_server_info``,
see ``_ext/content/live_code.py``), so ``make live`` never writes the token to a file. With ``gzip``
it compresses text files for a client that accepts it, as GitHub Pages does.
"""

from __future__ import annotations

import contextlib
import gzip
import json
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

SERVER_INFO = "_live/server.json"  # site-relative


# What GitHub Pages compresses: text, not images or fonts, which are compressed already.
COMPRESSED = (".html", ".css", ".js", ".json", ".svg", ".txt", ".xml", ".map")
GZIP_LEVEL = 6  # gzip's default, and about what static hosts use


class _SiteHandler(SimpleHTTPRequestHandler):
    server_info: dict[str, str] | None = None
    gzip = False
    protocol_version = "HTTP/1.1"  # connections kept open between requests, as a web host keeps them

    def do_GET(self) -> None:
        if self.path.split("?")[0] != "/" + SERVER_INFO:
            if self.gzip and "gzip" in self.headers.get("Accept-Encoding", ""):
                return self._send_gzipped()
            return super().do_GET()
        if self.server_info is None:
            return self.send_error(503, "The Jupyter server is not running yet")
        body = json.dumps(self.server_info).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Cache-Control", "no-store")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def _send_gzipped(self) -> None:
        """A text file gzipped, anything else (and a folder's index) as the base class sends it."""
        path = Path(self.translate_path(self.path))
        if path.is_dir():
            path = path / "index.html"
        if path.suffix not in COMPRESSED or not path.is_file():
            return super().do_GET()
        body = gzip.compress(path.read_bytes(), compresslevel=GZIP_LEVEL)
        self.send_response(200)
        self.send_header("Content-Type", self.guess_type(str(path)))
        self.send_header("Content-Encoding", "gzip")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: object) -> None:
        pass


@dataclass
class SiteServer:
    """A folder on 127.0.0.1, answering ``/_live/server.json`` from memory."""

    httpd: ThreadingHTTPServer
    handler: type[_SiteHandler]

    @property
    def origin(self) -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}"

    def url(self, path: str = "") -> str:
        """The URL of a site-relative path."""
        return f"{self.origin}/{path}"

    def point_at(self, base_url: str, token: str) -> None:
        """Answer ``/_live/server.json`` with the Jupyter server at ``base_url`` and its token."""
        self.handler.server_info = {"baseUrl": base_url, "token": token}


@contextlib.contextmanager
def serve(folder: Path, port: int = 0, gzip: bool = False) -> Iterator[SiteServer]:
    """Serve ``folder`` on 127.0.0.1 (``port`` 0: any free port) until the block ends; with ``gzip``,
    text files compressed."""
    handler = type("SiteHandler", (_SiteHandler,), {"gzip": gzip})  # its own server_info
    httpd = ThreadingHTTPServer(("127.0.0.1", port), partial(handler, directory=str(folder)))
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield SiteServer(httpd, handler)
    finally:
        httpd.shutdown()
        httpd.server_close()
