"""The project uses other packages through their public interfaces: no module of it assigns to an
attribute (or an item) of another package's module, class or object reached from one, and no
extension declares another package's parallel safety or edits Sphinx's registry. Writing an item
into Sphinx's ``env``, a ``document`` or the builder's ``context``, or reading
``app.events.listeners``, reaches into what other packages keep there: only the files that
CONTRIBUTING.md's table "Other packages' private parts" names do it."""

from __future__ import annotations

import ast
import re
import sys
from pathlib import Path

import pytest

from bookbuild import ROOT

PYTHON = ["code", "_ext", "bookbuild", "tools", "benchmarks", "tests"]
PROJECT = {"selfattn", "_ext", "bookbuild", "tools", "tests", "benchmarks"}
# Attributes only another package's machinery may set.
NOT_OURS = {"parallel_read_safe", "parallel_write_safe", "registry"}


def third_party_names(tree: ast.Module) -> set[str]:
    """The names a module binds to what it imports from packages neither the project's nor Python's."""
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            modules = [(alias.name, alias.asname or alias.name.split(".")[0]) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            modules = [(node.module, alias.asname or alias.name) for alias in node.names]
        else:
            continue
        for module, name in modules:
            top = module.split(".")[0]
            if top not in PROJECT and top not in sys.stdlib_module_names:
                names.add(name)
    return names


def _chain(target: ast.expr) -> tuple[str | None, list[str]]:
    """The root name of ``a.b[c].d`` and the attributes on the way (``b``, ``d``)."""
    attributes = []
    while isinstance(target, (ast.Attribute, ast.Subscript)):
        if isinstance(target, ast.Attribute):
            attributes.append(target.attr)
        target = target.value
    return (target.id if isinstance(target, ast.Name) else None), attributes


def patches(path: Path) -> list[str]:
    """Each place in ``path`` that sets something of another package's, as ``file:line: code``."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    theirs = third_party_names(tree)
    name = path.relative_to(ROOT) if path.is_relative_to(ROOT) else path
    found = []
    for node in ast.walk(tree):
        if isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "setattr":
            targets = [ast.Attribute(value=node.args[0], attr="")] if node.args else []
        else:
            continue
        for target in [
            t for outer in targets for t in (outer.elts if isinstance(outer, ast.Tuple) else [outer])
        ]:
            if not isinstance(target, (ast.Attribute, ast.Subscript)):
                continue
            root, attributes = _chain(target)
            if root in theirs or NOT_OURS & set(attributes):
                found.append(f"{name}:{node.lineno}: {ast.unparse(node).splitlines()[0]}")
    return found


def reaches_into_state(path: Path) -> list[str]:
    """Each place in ``path`` that writes an item into ``env``, a ``document`` or
    ``app.builder.context``, or reads ``app.events.listeners``, as ``file:line: code``."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    name = path.relative_to(ROOT) if path.is_relative_to(ROOT) else path
    found = []
    for node in ast.walk(tree):
        if isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in (t for t in targets if isinstance(t, ast.Subscript)):
                root, attributes = _chain(target)
                into_env = "env" in attributes or (root == "env" and attributes)  # not a dict named env
                into_document = "document" in {root, *attributes}
                if into_env or into_document or {"builder", "context"} <= set(attributes):
                    found.append(f"{name}:{node.lineno}: {ast.unparse(node).splitlines()[0]}")
        elif isinstance(node, ast.Attribute) and node.attr == "listeners":
            if isinstance(node.value, ast.Attribute) and node.value.attr == "events":
                found.append(f"{name}:{node.lineno}: {ast.unparse(node)}")
    return found


def private_table_files() -> set[str]:
    """The files CONTRIBUTING.md's table "Other packages' private parts" names."""
    section = (
        (ROOT / "CONTRIBUTING.md").read_text(encoding="utf-8").split("## Other packages' private parts")[1]
    )
    rows = [line for line in section.split("\n## ")[0].splitlines() if line.startswith("| ")]
    return {where for row in rows for where in re.findall(r"`(_ext/[^`]+|code/[^`]+|tools/[^`]+)`", row)}


def sources() -> list[Path]:
    return sorted(
        p for folder in PYTHON for p in (ROOT / folder).rglob("*.py") if "__pycache__" not in p.parts
    )


def test_no_module_sets_anything_of_another_package():
    found = [line for path in sources() for line in patches(path)]
    assert not found, "use a public interface (an option, a hook, a subclass) instead:\n" + "\n".join(found)


def test_only_the_files_the_private_table_names_reach_into_other_packages_state():
    allowed = private_table_files()
    found = [line for path in sources() for line in reaches_into_state(path)]
    outside = [line for line in found if line.split(":")[0] not in allowed]
    assert not outside, (
        "a write into env, a document or the builder's context, or a read of app.events.listeners, "
        "outside the files of CONTRIBUTING.md's table \"Other packages' private parts\": use a public "
        "interface, or add a row for it:\n" + "\n".join(outside)
    )


PATCHES = [
    "import jupyter_book.sphinx\njupyter_book.sphinx.build_sphinx = None",
    "import sphinx.builders\nsphinx.builders.make_chunks = None",
    "import myst_nb.ext.glue.utils as glue\nglue.retrieve_glue_data = None",
    "import sphinxcontrib.katex as katex\nkatex.KATEX_DEFAULT_OPTIONS['strict'] = 'error'",
    "from sphinxcontrib import katex\nkatex.KaTeXServer.start = classmethod(len)",
    "import katex\nsetattr(katex, 'NODEJS_BINARY', 'node')",
    "def declare(app):\n    app.extensions['x'].parallel_read_safe = True",
    "def drop(app):\n    app.registry.css_files[:] = []",
]
REACHES = [
    "def keep(self):\n    self.document['nb_renderer'] = 1",
    "def keep(env):\n    env.registry_of_theirs['x']['node'] = 2",
    "def preamble(app):\n    app.builder.context['preamble'] += 'x'",
    "def listeners(app):\n    return list(app.events.listeners)",
]


@pytest.mark.parametrize(
    ("check", "code"),
    [(patches, code) for code in PATCHES] + [(reaches_into_state, code) for code in REACHES],
)
def test_each_check_finds_each_kind_it_looks_for(tmp_path, check, code):
    module = tmp_path / "module.py"
    module.write_text(code)
    assert len(check(module)) == 1, code


def test_the_check_leaves_the_projects_own_settings_alone(tmp_path):
    module = tmp_path / "ours.py"
    module.write_text(
        "import os\nfrom selfattn import threads\nos.environ['A'] = '1'\nthreads.ALL_CORES = 2\n"
        "def configure(app, config):\n    config.html_theme_options['logo'] = {}\n"
    )
    assert patches(module) == []
