"""Every chapter as a reader's notebook: what the page shows, as a Jupyter notebook that runs anywhere.

The chapters' own notebooks (``book/*.md``) are the build's input: MyST markup that Jupyter and
Colab show as raw text, the build's hidden cells, no outputs. This extension writes, for each page
with code, ``notebooks/<page>.ipynb`` into the site, made from the page as the HTML build resolved
it (``html-page-context``), so in the edition's language:

- the prose as plain Markdown (roles, directives and glued numbers resolved to text, links to the
  published site, math as ``$…$``, figures as images attached to their cell);
- each code cell the page shows, with the outputs the build printed and drew (the Chinese
  edition's comments and printed words in Chinese);
- the cells the page hides from its reader (``remove-cell``) left out, but for the statements of
  them that later cells need (a setup that defines what they use); the build's own statements
  (``glue``, ``assert``) never;
- a first cell that installs the book's package at the commit the site was built from, with the
  locked versions of what it needs besides torch, sets the kernel up as a live page's is, and
  says in one line what it did.

The page's download menu offers it in place of the source notebook, and the header offers it on
Colab and Kaggle, which open notebooks from GitHub: the publishing workflow pushes the site's
``notebooks/`` folder to the repository's ``notebooks`` branch and tags it ``notebooks-<commit>``
(:func:`published_notebook`). ``notebooks/<language>.zip`` holds an edition's notebooks.
"""

from __future__ import annotations

import ast
import base64
import json
import re
import zipfile
from pathlib import Path
from typing import Any
from urllib.parse import urljoin

import jupytext
from docutils import nodes
from sphinx.application import Sphinx
from sphinx.locale import admonitionlabels
from sphinx.transforms.post_transforms import SphinxPostTransform

from _ext.content.build_stamp import ROOT, this_edition
from _ext.editions.translation import say

FOLDER = "notebooks"
BRANCH = "notebooks"  # the repository's branch the publishing workflow pushes the notebooks to
LOCK = ROOT / "requirements.lock"
# What the package needs besides torch, at the versions the book was built with (requirements.lock);
# torch stays as the reader's machine has it (Colab's and Kaggle's have CUDA).
NEEDS = ("tiktoken", "matplotlib", "tqdm")
BUILD_ONLY = {"glue"}  # calls that feed the page, not the reader
IMAGE_TYPES = ("image/png", "image/jpeg", "image/svg+xml")
IMAGE_ATTRIBUTE = "reader_image"  # on an output shown in place of an image: the image's file


def locked(names: tuple[str, ...] = NEEDS, lock: Path = LOCK) -> list[str]:
    """``name==version`` of each of ``names``, as ``requirements.lock`` pins it."""
    text = lock.read_text(encoding="utf-8")
    pins = []
    for name in names:
        found = re.search(rf"^{re.escape(name)}==([^\s\\;]+)", text, flags=re.M)
        if found is None:
            raise ValueError(f"{lock.name} pins no {name}")
        pins.append(f"{name}=={found[1]}")
    return pins


def install_source(repository: str, commit: str, setup: str, language: str | None) -> str:
    """The first cell: the package at ``commit`` from ``repository`` with its locked needs, the
    live pages' kernel ``setup``, and one line that says what was installed."""
    package = f"selfattn @ git+{repository}@{commit}" if commit else f"selfattn @ git+{repository}"
    fields = {"version": "{version}", "torch": "{torch}", "device": "{device}"}  # filled in by the f-string
    said = say(language, "selfattn {version} installed, with torch {torch} ({device}).", **fields)
    return "\n".join(
        [
            "# " + say(language, "The book's package at the version this notebook was built from, and what"),
            "# " + say(language, "it needs besides torch, which stays as it is here. Run this first."),
            f"%pip install --quiet {' '.join(json.dumps(p) for p in [package, *locked()])}",
            setup.strip(),
            "from importlib.metadata import version",
            "",
            "import torch",
            "",
            'installed, device = version("selfattn"), "CUDA" if torch.cuda.is_available() else "CPU"',
            f"print(f{said!r})".replace("{version}", "{installed}").replace("{torch}", "{torch.__version__}"),
        ]
    )


# ---- the page's prose, as Markdown ------------------------------------------------------------


class Markdown:
    """Markdown for one page's prose, links made absolute against ``page_url``; images become
    the cell's attachments."""

    def __init__(self, page_url: str, images: Path, numbers: dict[str, str] | None = None):
        self.page_url, self.images = page_url, images
        self.numbers = numbers or {}  # "Exercise 1" by a numbered box's id, as the page numbers it
        self.attachments: dict[str, dict[str, str]] = {}

    def inline(self, node: nodes.Node) -> str:
        if isinstance(node, nodes.Text):
            return re.sub(r"([*_`\[\]<>])", r"\\\1", node.astext()).replace("\n", " ")
        if isinstance(node, nodes.math):
            return f"${node.astext()}$"
        if isinstance(node, nodes.literal):
            text = node.astext()
            fence = "``" if "`" in text else "`"
            return f"{fence}{text}{fence}"
        if isinstance(node, nodes.strong):
            return f"**{self.inlines(node)}**"
        if isinstance(node, nodes.emphasis):
            return f"*{self.inlines(node)}*"
        if isinstance(node, nodes.reference):
            target = node.get("refuri") or ("#" + node["refid"] if node.get("refid") else "")
            text = self.inlines(node)
            space = " " if text.startswith(" ") else ""
            return f"{space}[{text.strip()}]({urljoin(self.page_url, target)})" if target else text
        if isinstance(node, nodes.image):
            return self.image(node)
        if isinstance(node, (nodes.target, nodes.comment, nodes.raw, nodes.substitution_definition)):
            return ""
        if isinstance(node, nodes.footnote_reference):
            return f"[{node.astext()}]"
        return self.inlines(node)

    def inlines(self, node: nodes.Node) -> str:
        return "".join(self.inline(child) for child in node.children)

    def image(self, node: nodes.Element) -> str:
        """An image (or an output shown in place of one), attached to the cell, as Markdown."""
        marked = node.get(IMAGE_ATTRIBUTE)
        source = self.images / marked if marked else image_file(node, self.images)
        kind = {".png": "image/png", ".svg": "image/svg+xml", ".jpg": "image/jpeg"}.get(source.suffix)
        if kind is None or not source.is_file():
            return ""
        name = source.name
        data = source.read_bytes()
        payload = data.decode("utf-8") if kind == "image/svg+xml" else base64.b64encode(data).decode()
        self.attachments[name] = {kind: payload}
        alt = node.get("alt", "").replace("\n", " ").replace("]", ")").replace("[", "(")
        return f"![{alt}](attachment:{name})"

    def blocks(self, children: list[nodes.Node]) -> list[str]:
        """The Markdown blocks of ``children``."""
        return [block for child in children for block in self.block(child) if block.strip()]

    def block(self, node: nodes.Node) -> list[str]:
        """``node`` as Markdown blocks (paragraphs, lists, headings...)."""
        if isinstance(node, nodes.section):
            level = _section_level(node)
            if not node.children or not isinstance(node.children[0], nodes.title):
                return self.blocks(node.children)  # an extension's untitled part (an exercise's body)
            title, *rest = node.children
            return [f"{'#' * level} {self.inlines(title)}", *self.blocks(rest)]
        if isinstance(node, nodes.paragraph):
            return [self.inlines(node)]
        if isinstance(node, (nodes.bullet_list, nodes.enumerated_list)):
            return [self.items(node)]
        if isinstance(node, (nodes.literal_block, nodes.doctest_block)):
            return [f"```\n{node.astext()}\n```"]
        if isinstance(node, nodes.math_block):
            return [f"$$\n{node.astext()}\n$$"]
        if isinstance(node, nodes.table):
            return [self.table(node)]
        if isinstance(node, nodes.figure):
            return self._figure(node)
        if isinstance(node, nodes.image) or (isinstance(node, nodes.raw) and node.get(IMAGE_ATTRIBUTE)):
            return [self.image(node)]
        if isinstance(node, nodes.definition_list):
            return [
                f"**{self.inlines(item.children[0])}**\n\n"
                + "\n\n".join(self.blocks(item.children[-1].children))
                for item in node.children
            ]
        if isinstance(node, (nodes.Admonition, nodes.topic, nodes.sidebar)) or _titled(node):
            return [self.quote(node)]
        if isinstance(node, (nodes.target, nodes.comment, nodes.raw, nodes.substitution_definition)):
            return []
        if isinstance(node, (nodes.Text, nodes.TextElement)) and not isinstance(node, nodes.title):
            return [self.inline(node)]
        return self.blocks(node.children)

    def items(self, node: nodes.Element) -> str:
        ordered = isinstance(node, nodes.enumerated_list)
        lines = []
        for number, item in enumerate(node.children, start=1):
            mark = f"{number}. " if ordered else "- "
            text = "\n\n".join(self.blocks(item.children))
            indented = text.replace("\n", "\n" + " " * len(mark))
            lines.append(mark + indented)
        return "\n".join(lines)

    def quote(self, node: nodes.Element) -> str:
        """A titled box (a tip, a note, an exercise) as a quoted block with its title in bold."""
        title = next((child for child in node.children if _is_title(child)), None)
        body = [child for child in node.children if child is not title]
        number = next((self.numbers[i] for i in node.get("ids", []) if i in self.numbers), "")
        label = str(admonitionlabels.get(node.tagname, ""))  # "Note", as Sphinx's pages label a note
        heading = (number + self.inlines(title) if title is not None else number or label).strip()
        parts = ([f"**{heading}**"] if heading else []) + self.blocks(body)
        return "\n".join("> " + line if line else ">" for line in "\n\n".join(parts).splitlines())

    def table(self, node: nodes.table) -> str:
        rows = [
            [self.inlines(entry).replace("|", "\\|") or " " for entry in row.findall(nodes.entry)]
            for row in node.findall(nodes.row)
        ]
        if not rows:
            return ""
        width = max(len(row) for row in rows)
        rows = [row + [" "] * (width - len(row)) for row in rows]
        lines = ["| " + " | ".join(rows[0]) + " |", "|" + "---|" * width]
        lines += ["| " + " | ".join(row) + " |" for row in rows[1:]]
        return "\n".join(lines)

    def _figure(self, node: nodes.figure) -> list[str]:
        images = [self.image(image) for image in _shown_images(node)]
        caption = [self.inlines(child) for child in node.children if isinstance(child, nodes.caption)]
        return ["\n\n".join(image for image in images if image)] + [f"*{text}*" for text in caption]


def image_file(node: nodes.image, source_folder: Path) -> Path:
    """The file an image node shows: Sphinx's candidate, relative to the book's source folder."""
    return source_folder / node.get("candidates", {}).get("*", node["uri"])


def _section_level(section: nodes.section) -> int:
    level = 1
    parent = section.parent
    while parent is not None:
        level += isinstance(parent, nodes.section)
        parent = parent.parent
    return min(level, 6)


def _is_title(node: nodes.Node) -> bool:
    return isinstance(node, nodes.title) or type(node).__name__.endswith("_title")


def _titled(node: nodes.Node) -> bool:
    """An extension's box with a title of its own (an exercise, a solution, a question)."""
    return isinstance(node, nodes.Element) and any(_is_title(child) for child in node.children)


def _shown_images(node: nodes.Element) -> list[nodes.image]:
    """The image a page shows of each output bundle under ``node`` (PNG first), or its plain images."""
    chosen = []
    for image in node.findall(nodes.image):
        bundle = image.parent.parent if image.parent is not None else None
        if bundle is not None and bundle.get("nb_element") == "mime_bundle":
            kinds = [child.get("mime_type") for child in bundle.children]
            best = next(kind for kind in (*IMAGE_TYPES, *kinds) if kind in kinds)
            if image.parent.get("mime_type") != best:
                continue
        chosen.append(image)
    return chosen


# ---- code cells ---------------------------------------------------------------------------------


def _outputs(cell: nodes.Element, source_folder: Path) -> list[dict[str, Any]]:
    """What the page shows a code cell printed and drew, as notebook outputs: printed text as the
    page shows it (in the Chinese edition, translated), each drawing as its image (an interactive
    figure's HTML needs the site's script: its static image stands in)."""
    outputs: list[dict[str, Any]] = []
    for part in cell.children:
        if part.get("nb_element") != "cell_code_output":
            continue
        for node in part.findall(lambda n: isinstance(n, (nodes.literal_block, nodes.image, nodes.raw))):
            if node.get(IMAGE_ATTRIBUTE):
                outputs.append(_image_output(source_folder / node[IMAGE_ATTRIBUTE], node.get("alt", "")))
            elif isinstance(node, nodes.image):
                outputs.append(_image_output(image_file(node, source_folder), node.get("alt", "")))
            elif isinstance(node, nodes.raw):
                outputs.append(_result({"text/html": node.astext()}, "display_data"))
            elif "stderr" in node["classes"] or "stream" in node["classes"]:
                text = node.astext()
                name = "stderr" if "stderr" in node["classes"] else "stdout"
                outputs.append({"output_type": "stream", "name": name, "text": text.rstrip("\n") + "\n"})
            else:
                outputs.append(_result({"text/plain": node.astext()}))
    return outputs


def _image_output(path: Path, alt: str) -> dict[str, Any]:
    if path.suffix == ".svg":
        data = {"image/svg+xml": path.read_text(encoding="utf-8")}
    else:
        data = {"image/png": base64.b64encode(path.read_bytes()).decode()}
    return _result({**data, "text/plain": alt or "<Figure>"}, "display_data")


class MarkFigureImages(SphinxPostTransform):
    """Mark each output the page shows in place of an image (an interactive figure) with the
    image's file, before MyST-NB keeps one format of each output (``SelectMimeType``, 4)."""

    default_priority = 3

    def run(self, **kwargs: Any) -> None:
        for bundle in self.document.findall(nodes.container):
            if bundle.get("nb_element") != "mime_bundle":
                continue
            images = [
                image
                for kind in IMAGE_TYPES
                for part in bundle.children
                if part.get("mime_type") == kind
                for image in part.findall(nodes.image)
            ]
            if not images:
                continue
            chosen = images[0].get("candidates", {}).get("*", images[0]["uri"])
            for part in bundle.children:
                for node in part.children:
                    if isinstance(node, nodes.Element) and not isinstance(node, nodes.image):
                        node[IMAGE_ATTRIBUTE] = chosen
                        node["alt"] = node.get("alt") or images[0].get("alt", "")


def _result(data: dict[str, str], kind: str = "execute_result") -> dict[str, Any]:
    output = {"output_type": kind, "data": data, "metadata": {}}
    return {**output, "execution_count": None} if kind == "execute_result" else output


def reader_code(source: str) -> str:
    """``source`` without the build's own statements (``glue`` calls and imports, ``assert``s);
    "" when nothing else is left."""
    try:
        tree = ast.parse(source)
    except SyntaxError:  # IPython's magics: the reader's code as it is
        return source
    lines = source.splitlines()
    dropped: set[int] = set()
    for statement in tree.body:
        if _build_only(statement):
            dropped.update(range(statement.lineno - 1, statement.end_lineno or statement.lineno))
    kept = [line for number, line in enumerate(lines) if number not in dropped]
    text = "\n".join(kept).strip("\n")
    code_left = any(not _build_only(statement) for statement in tree.body)
    return text if code_left else ""


def _build_only(statement: ast.stmt) -> bool:
    if isinstance(statement, ast.Assert):
        return True
    if isinstance(statement, ast.ImportFrom) and statement.module == "myst_nb":
        return True
    if isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Call):
        function = statement.value.func
        return isinstance(function, ast.Name) and function.id in BUILD_ONLY
    if isinstance(statement, ast.For):  # a loop that only glues
        return all(_build_only(inner) for inner in statement.body)
    return False


def names(source: str) -> tuple[set[str], set[str]]:
    """The names ``source`` binds and the names it reads (empty for code Python cannot parse)."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return set(), set()
    bound, read = set(), set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            (bound if isinstance(node.ctx, ast.Store) else read).add(node.id)
        elif isinstance(node, (ast.FunctionDef, ast.ClassDef, ast.AsyncFunctionDef)):
            bound.add(node.name)
        elif isinstance(node, ast.alias):
            bound.add((node.asname or node.name).split(".")[0])
    return bound, read


def needed_hidden(cells: list[tuple[str, bool]]) -> list[bool]:
    """For each ``(source, shown)`` cell, whether a reader's notebook keeps it: every shown cell,
    and each hidden one that binds a name a later kept cell reads before a kept cell binds it."""
    keep = [shown for _, shown in cells]
    wanted: set[str] = set()
    for at in range(len(cells) - 1, -1, -1):
        source, shown = cells[at]
        bound, read = names(source)
        if not shown and bound & wanted:
            keep[at] = True
        if keep[at]:
            wanted = (wanted - bound) | read
    return keep


# ---- the notebook -------------------------------------------------------------------------------


def notebook(
    doctree: nodes.document, hidden: dict[int, str], writer: Markdown, install: str
) -> dict[str, Any]:
    """The reader's notebook of a page's resolved ``doctree``, its prose written by ``writer``;
    ``hidden`` holds the source of each cell the page leaves out, by its index in the chapter's
    notebook."""
    images = writer.images
    cells: list[dict[str, Any]] = [_code(install, [])]
    prose: list[str] = []

    def flush() -> None:
        if prose:
            cells.append(_markdown("\n\n".join(prose), writer.attachments))
            writer.attachments = {}
            prose.clear()

    shown: list[tuple[int, dict[str, Any]]] = []

    def walk(children: list[nodes.Node]) -> None:
        for child in children:
            if isinstance(child, nodes.container) and child.get("nb_element") == "cell_code":
                flush()
                source = next((p.astext() for p in child.findall(nodes.literal_block) if _is_source(p)), "")
                index = child.get("cell_index", -1)
                cell = _code(reader_code(source), _outputs(child, images))
                cells.append(cell)
                shown.append((index, cell))
            elif isinstance(child, nodes.section) and child.children and isinstance(child[0], nodes.title):
                level = _section_level(child)
                prose.append(f"{'#' * level} {writer.inlines(child.children[0])}")
                walk(child.children[1:])
            else:
                prose.extend(writer.block(child))

    walk(doctree.children)
    flush()
    _insert_hidden(cells, shown, hidden)
    cells = [cell for cell in cells if "".join(cell["source"]).strip() or cell["cell_type"] == "markdown"]
    cells = [{"id": f"cell-{number}", **cell} for number, cell in enumerate(cells)]  # nbformat 4.5
    return {
        "cells": cells,
        "metadata": {
            "kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"},
            "language_info": {"name": "python"},
            "colab": {"provenance": []},
        },
        "nbformat": 4,
        "nbformat_minor": 5,
    }


def _is_source(block: nodes.literal_block) -> bool:
    parent = block.parent
    return parent is not None and parent.get("nb_element") == "cell_code_source"


def _insert_hidden(cells: list[dict], shown: list[tuple[int, dict]], hidden: dict[int, str]) -> None:
    """Put back, before the next shown cell, each hidden cell that a later cell needs."""
    order = sorted([(index, source, False) for index, source in hidden.items()])
    order += [(index, "".join(cell["source"]), True) for index, cell in shown]
    order.sort(key=lambda item: item[0])
    keep = needed_hidden([(source, is_shown) for _, source, is_shown in order])
    next_shown: dict[int, dict] = {}
    pending: list[str] = []
    for (index, source, is_shown), kept in zip(order, keep, strict=True):
        if is_shown:
            if pending:
                next_shown[index] = _code("\n\n".join(pending), [], hidden_source=True)
                pending = []
        elif kept and (code := reader_code(source)):
            pending.append(code)
    by_index = {index: cell for index, cell in shown}
    for index, cell in sorted(next_shown.items(), reverse=True):
        at = next(i for i, c in enumerate(cells) if c is by_index[index])
        cells.insert(at, cell)
    if pending:
        cells.append(_code("\n\n".join(pending), [], hidden_source=True))


def _code(source: str, outputs: list[dict], hidden_source: bool = False) -> dict[str, Any]:
    metadata: dict[str, Any] = {}
    if hidden_source:  # the page's setup, shown collapsed: Jupyter's and Colab's ways
        metadata = {"jupyter": {"source_hidden": True}, "cellView": "form"}
    return {
        "cell_type": "code",
        "execution_count": None,
        "metadata": metadata,
        "outputs": outputs,
        "source": source.splitlines(keepends=True),
    }


def _markdown(text: str, attachments: dict[str, dict[str, str]]) -> dict[str, Any]:
    cell: dict[str, Any] = {"cell_type": "markdown", "metadata": {}, "source": text.splitlines(keepends=True)}
    if attachments:
        cell["attachments"] = dict(attachments)
    return cell


# ---- where the notebooks are ----------------------------------------------------------------------


def published_notebook(repository: str, commit: str, language: str, page: str) -> str:
    """The GitHub address of a page's published notebook: on the ``notebooks`` branch, tagged
    ``notebooks-<commit>`` for the site built from ``commit``."""
    ref = f"{BRANCH}-{commit}" if commit else BRANCH
    return f"{repository}/blob/{ref}/{language}/{page}.ipynb"


def colab_url(github_file: str) -> str:
    """Colab opens a notebook on GitHub by its path: colab.research.google.com/github/<owner>/..."""
    return "https://colab.research.google.com/github/" + github_file.removeprefix("https://github.com/")


def kaggle_url(github_file: str) -> str:
    """Kaggle imports a notebook from a URL: kaggle.com/kernels/welcome?src=<url>."""
    return "https://www.kaggle.com/kernels/welcome?src=" + github_file


def _hidden_sources(app: Sphinx, docname: str) -> dict[int, str]:
    """The code cells of the chapter's notebook the page does not show, by index."""
    source = Path(app.env.doc2path(docname))
    if source.suffix != ".md":
        return {}
    chapter = jupytext.read(source, fmt="md:myst")  # as MyST-NB reads the book's .md notebooks
    return {
        index: cell.source
        for index, cell in enumerate(chapter.cells)
        if cell.cell_type == "code" and "remove-cell" in cell.metadata.get("tags", [])
    }


def _write(app: Sphinx, pagename: str, templatename: str, context: dict, doctree: Any) -> None:
    """Write the page's notebook and offer it in the header's download and launch menus."""
    if app.builder.name != "html" or doctree is None:
        return
    if not any(node.get("nb_element") == "cell_code" for node in doctree.findall(nodes.container)):
        return
    language = app.config.language or "en"
    edition = this_edition()
    site = (
        app.config.html_baseurl.rstrip("/") + "/" + ("" if language == "en" else language.split("_")[0] + "/")
    )
    page_url = urljoin(site, pagename + ".html")
    images = Path(app.srcdir)
    repository = app.config.html_theme_options.get("repository_url", "")
    install = install_source(repository, edition.commit, app.config.live_code_setup, app.config.language)
    numbered = app.env.toc_fignumbers.get(pagename, {}).get("exercise", {})
    label = app.config.numfig_format.get("exercise", "Exercise %s")
    numbers = {ident: label % ".".join(map(str, number)) for ident, number in numbered.items()}
    book = notebook(doctree, _hidden_sources(app, pagename), Markdown(page_url, images, numbers), install)
    target = Path(app.outdir) / FOLDER / f"{pagename}.ipynb"
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(json.dumps(book, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    _offer(context, pagename, published_notebook(repository, edition.commit, language, pagename), language)


def _offer(context: dict, pagename: str, github_file: str, language: str) -> None:
    """The download menu's notebook: this one; and buttons that open it on Colab and Kaggle."""
    relative = context["pathto"](f"{FOLDER}/{pagename}.ipynb", 1)
    for group in context.get("header_buttons", []):
        if group.get("label") != "download-buttons":
            continue
        buttons = [b for b in group["buttons"] if b.get("label") != "download-notebook-button"]
        notebook_button = {
            "type": "link",
            "url": relative,
            "text": ".ipynb",
            "icon": "fas fa-code",
            "tooltip": say(language, "Download this chapter as a notebook"),
            "label": "download-notebook-button",
        }
        group["buttons"] = [notebook_button, *buttons]
    launches = [
        {
            "type": "link",
            "url": url,
            "text": name,
            "icon": icon,
            "tooltip": say(language, "Open in {name}", name=name),
            "label": label,
        }
        for name, url, icon, label in [
            ("Colab", colab_url(github_file), "fab fa-google", "open-in-colab-button"),
            ("Kaggle", kaggle_url(github_file), "fab fa-kaggle", "open-in-kaggle-button"),
        ]
    ]
    buttons = context.setdefault("header_buttons", [])
    group = next((g for g in buttons if g.get("label") == "launch-buttons"), None)  # Binder's, Live Code's
    if group is not None:
        group["buttons"] = [*group["buttons"], *launches]
    else:
        tooltip = say(language, "Run this chapter's notebook")
        buttons.insert(0, {"type": "group", "tooltip": tooltip, "icon": "fas fa-rocket", "buttons": launches})


def _zip(app: Sphinx, exception: Exception | None) -> None:
    """``notebooks/<language>.zip``: every notebook of this edition."""
    folder = Path(app.outdir) / FOLDER
    if exception is not None or app.builder.name != "html" or not folder.is_dir():
        return
    language = app.config.language or "en"
    with zipfile.ZipFile(folder / f"{language}.zip", "w", zipfile.ZIP_DEFLATED) as archive:
        for file in sorted(folder.rglob("*.ipynb")):
            archive.write(file, f"{language}/{file.relative_to(folder)}")


def setup(app: Sphinx) -> dict[str, Any]:
    app.add_post_transform(MarkFigureImages)
    app.connect("html-page-context", _write, priority=600)  # after the theme's header buttons
    app.connect("build-finished", _zip)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
