"""Every chapter is read again when the package it runs has changed.

The chapters' outputs come from the execution cache, which runs every chapter again when the
code of ``selfattn`` changes (``bookbuild/execute.py``). Sphinx reads a page again only when its own
source or the config changed, and would keep the old outputs; so the package's digest is a config
value that rebuilds the environment, set here when the config is read.
"""

from __future__ import annotations

from typing import Any

from sphinx.application import Sphinx
from sphinx.config import Config

from selfattn.run_cache import code_digest, every_module


def _configure(app: Sphinx, config: Config) -> None:
    config.chapter_outputs_package = code_digest(every_module())


def setup(app: Sphinx) -> dict[str, Any]:
    app.add_config_value("chapter_outputs_package", "", "env", types=[str])
    app.connect("config-inited", _configure)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
