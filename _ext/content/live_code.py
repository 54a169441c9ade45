"""Live code: a chapter's cells become editable and runnable in the reader's browser.

The pages load thebe 0.9.3 (sphinx-thebe 0.3.1 would load 0.8.2, which readers can no longer
get from npm) through this extension's own loader, ``live_code_static/live-code.js``. The
kernel comes from Binder, built from the repository and branch named once in ``_config.yml``
(``repository: url/branch``), or, for ``make live``, from a Jupyter server on this machine.

thebe is served by the site itself, not by a CDN: ``npm ci`` installs the version that
``package.json`` pins into ``node_modules/thebe`` (git-ignored), checked against the integrity
hash in ``package-lock.json``, and every HTML build copies its scripts and styles (not the source
maps or type declarations) into the site's ``_thebe/`` folder when the build has finished.
Nothing of thebe is committed; without it the HTML build stops and says to run ``make install``.

Configuration (``_config.yml`` under ``sphinx: config:``):

- ``live_code_thebe_url``: where the thebe bundle is loaded from, relative to the site's root
  (``_thebe/index.js``, the copy described above) or a full URL.
- ``live_code_setup``: code run silently in every new kernel before the ``thebe-init`` cells.
- ``live_code_runs``: a regular expression (JavaScript's) that the code of a cell which loads the
  book's trained runs matches; while such a cell runs, the button says the page is loading them.
- ``live_code_binder_ref``: the branch, tag or commit Binder builds readers' kernels from; empty
  means ``repository: branch``. The environment variable ``LIVE_CODE_BINDER_REF`` overrides it for
  one build (the publishing workflow points a release's pages at its tag). It also sets the
  header's Binder launch button.
- ``live_code_server_info``: empty for Binder. Otherwise the site-relative URL of a JSON
  document ``{"baseUrl": ..., "token": ...}`` naming a Jupyter server; ``make live`` serves it
  from memory so the token never lands in a file. The environment variable
  ``LIVE_CODE_SERVER_INFO`` overrides it for one build.

The extension also keeps sphinx-thebe (loaded by Jupyter Book) from adding its own assets: its
inline script is registered late and ends up on every page twice, which throws "Identifier
'THEBE_JS_URL' has already been declared". Assets registered here at ``config-inited`` appear
once.
"""

from __future__ import annotations

import json
import os
import posixpath
import re
import shutil
from pathlib import Path
from typing import Any

import sphinx_thebe
from sphinx.application import Sphinx
from sphinx.config import Config

from _ext.npm_dependency import npm_dependency, pinned_version

THEBE_VERSION = pinned_version("thebe")  # package.json's dependencies
THEBE_SITE_DIR = "_thebe"  # the site's copy of thebe's lib/ folder
# The handlers sphinx-thebe connects that add its assets to pages (CONTRIBUTING.md, "Other
# packages' private parts": "thebe handlers").
SPHINX_THEBE_HANDLERS = (
    sphinx_thebe.st_static_path,
    sphinx_thebe.init_thebe_core,
    sphinx_thebe.update_thebe_context,
)
THEBE_URL = f"{THEBE_SITE_DIR}/index.js"
DEFAULT_BINDERHUB = "https://mybinder.org"
SERVER_INFO_ENV = "LIVE_CODE_SERVER_INFO"
BINDER_REF_ENV = "LIVE_CODE_BINDER_REF"
STATIC = Path(__file__).with_name("live_code_static")
SPHINX_THEBE_CSS = "sphinx-thebe.css"  # what sphinx-thebe adds to every page
# The live-code button's place, empty and unseen until the loader makes it the button: the page
# does not move when the button appears (live-code.js, live-code.css).
BUTTON_PLACE = '<button type="button" class="thebe-launch-button">&#160;</button>'


def thebe_lib() -> Path:
    """thebe's ``lib`` folder, from ``node_modules/thebe`` (``npm ci``), at the pinned version."""
    return npm_dependency("thebe") / "lib"


def _site_files(lib: Path) -> list[Path]:
    """What the site needs of thebe: its scripts, its styles and the scripts' licence notices."""
    return sorted(
        p for p in lib.iterdir() if p.is_file() and p.name.endswith((".js", ".css", ".LICENSE.txt"))
    )


def _check_thebe(app: Sphinx) -> None:
    """Stop an HTML build at its start when thebe is missing, not after executing every chapter."""
    if app.builder.format == "html":
        thebe_lib()


def _copy_thebe(app: Sphinx, exception: Exception | None) -> None:
    """Copy thebe into the finished site (``_thebe/``), once the HTML build has succeeded."""
    if exception is not None or app.builder.format != "html":
        return
    target = Path(app.outdir) / THEBE_SITE_DIR
    shutil.rmtree(target, ignore_errors=True)
    target.mkdir(parents=True)
    for source in _site_files(thebe_lib()):
        shutil.copy2(source, target / source.name)


def _drop_sphinx_thebe_assets(app: Sphinx) -> None:
    """Keep sphinx-thebe's config value (the theme reads it) but none of its page assets: its
    handlers are disconnected (``app.disconnect``), and its style sheet is left off each page."""
    for listeners in app.events.listeners.values():  # private: CONTRIBUTING.md, "event listeners"
        for listener in list(listeners):
            if listener.handler in SPHINX_THEBE_HANDLERS:
                app.disconnect(listener.id)


def _drop_sphinx_thebe_css(
    app: Sphinx, pagename: str, templatename: str, context: dict[str, Any], doctree: Any
) -> None:
    if "css_files" in context:
        kept = [css for css in context["css_files"] if posixpath.basename(css.filename) != SPHINX_THEBE_CSS]
        context["css_files"] = kept  # (Sphinx names them by their path in the site: _static/...)


def _register_assets(app: Sphinx, config: Config) -> None:
    override = os.environ.get(SERVER_INFO_ENV)
    if override is not None:
        config.live_code_server_info = override
    ref = os.environ.get(BINDER_REF_ENV) or config.live_code_binder_ref
    if ref:
        config.live_code_binder_ref = ref
        config.html_theme_options["repository_branch"] = ref  # the header's Binder button too
    config.html_static_path.append(str(STATIC))
    app.add_css_file("live-code.css")
    app.add_js_file("live-code.js", loading_method="defer")


def _binder_repo(repository_url: str) -> str:
    """``org/name`` of a GitHub repository URL."""
    match = re.search(r"github\.com[/:]([^/]+/[^/]+?)(?:\.git)?/?$", repository_url)
    if not match:
        raise ValueError(f"live code needs a GitHub repository URL for Binder, got {repository_url!r}")
    return match.group(1)


def _kernel_name(metadata: dict[str, Any]) -> str | None:
    kernelspec = metadata.get("kernelspec")
    if isinstance(kernelspec, str):
        kernelspec = json.loads(kernelspec)
    return kernelspec.get("name") if kernelspec else None


def page_config(app: Sphinx, pagename: str) -> dict[str, Any] | None:
    """What the loader needs on one page, or None for a page without a kernel."""
    kernel = _kernel_name(app.env.metadata.get(pagename, {}))
    if kernel is None:
        return None
    theme = app.config.html_theme_options
    launch = theme.get("launch_buttons", {})
    path_to_book = theme.get("path_to_docs", "").strip("/")
    return {
        "thebeUrl": app.config.live_code_thebe_url,
        "binder": {
            "repo": _binder_repo(theme.get("repository_url", "")),
            "ref": theme.get("repository_branch") or "main",
            "binderUrl": (launch.get("binderhub_url") or DEFAULT_BINDERHUB).rstrip("/"),
            "repoProvider": "github",
        },
        "serverInfo": app.config.live_code_server_info,
        "kernelName": kernel,
        "path": posixpath.join(path_to_book, posixpath.dirname(pagename)) or "/",
        "setup": app.config.live_code_setup,
        "runs": app.config.live_code_runs,
    }


def _add_page_config(
    app: Sphinx, pagename: str, templatename: str, context: dict[str, Any], doctree: Any
) -> None:
    if doctree is None or "body" not in context:
        return
    config = page_config(app, pagename)
    if config is None:
        return
    payload = json.dumps(config).replace("</", "<\\/")
    body = context["body"]
    if "cell_input" in body:  # a page with code: the button's place, under its title
        body = body.replace("</h1>", f"</h1>\n{BUTTON_PLACE}", 1)
    context["body"] = body + f'\n<script type="application/json" id="live-code-config">{payload}</script>\n'


def setup(app: Sphinx) -> dict[str, Any]:
    app.setup_extension("sphinx_thebe")
    _drop_sphinx_thebe_assets(app)
    app.add_config_value("live_code_thebe_url", THEBE_URL, "html")
    app.add_config_value("live_code_setup", "", "html")
    app.add_config_value("live_code_runs", "", "html")
    app.add_config_value("live_code_server_info", "", "html")
    app.add_config_value("live_code_binder_ref", "", "html")
    app.connect("config-inited", _register_assets)
    app.connect("builder-inited", _check_thebe)
    app.connect("build-finished", _copy_thebe)
    app.connect("html-page-context", _add_page_config)
    app.connect("html-page-context", _drop_sphinx_thebe_css)
    return {"version": THEBE_VERSION, "parallel_read_safe": True, "parallel_write_safe": True}
