"""Exercises' titles.

sphinx-exercise makes a title's words without a source, so Sphinx takes them for its own words and
neither extracts nor translates them; they get their exercise's. The gettext build extracts
messages after sphinx-exercise has merged each title into a plain one, so there each title's words
are wrapped, just before, in an element of their own. A solution's title, which repeats its
exercise's, is taken from the translated exercise.
"""

from __future__ import annotations

from typing import Any

from docutils import nodes
from sphinx.application import Sphinx
from sphinx.transforms import SphinxTransform
from sphinx.transforms.post_transforms import SphinxPostTransform
from sphinx_exercise.nodes import exercise_subtitle


class SourceExerciseTitles(SphinxTransform):
    """Give each exercise's title its exercise's source, so it is extracted and translated."""

    default_priority = 19  # before Sphinx translates (Locale, 20)

    def apply(self, **kwargs: Any) -> None:
        for node in self.document.findall(exercise_subtitle):
            exercise = node.parent.parent
            node.source = exercise.source or self.document["source"]
            node.line = exercise.line or 1
            node.rawsource = node.astext()  # the message, as written (before smart quotes)


class ShareExerciseTitles(SphinxTransform):
    """Give solutions their exercise's translated title.

    sphinx-exercise keeps a copy of each exercise, made before Sphinx translated it, for the
    titles of its solutions; this copy is made again after.
    """

    default_priority = 21  # after Sphinx translates (Locale, 20)

    def apply(self, **kwargs: Any) -> None:
        # private: CONTRIBUTING.md, "Other packages' private parts", "exercise registry"
        registry = getattr(self.env, "sphinx_exercise_registry", {})
        for node in self.document.findall(exercise_subtitle):
            exercise = node.parent.parent
            if exercise.get("label") in registry:
                registry[exercise["label"]]["node"] = exercise.deepcopy()


class KeepExerciseTitles(SphinxPostTransform):
    """Gettext build: keep each exercise title's words extractable through sphinx-exercise's merge."""

    default_priority = 19  # before sphinx-exercise merges the titles (ResolveTitlesInExercises, 20)
    builders = ("gettext",)

    def run(self, **kwargs: Any) -> None:
        for node in self.document.findall(exercise_subtitle):
            words = nodes.inline(node.rawsource, "", *node.children, translatable=True)
            words.source, words.line, words.uid = node.source, node.line, node.uid
            node.children = [words]


def setup(app: Sphinx) -> dict[str, Any]:
    app.add_transform(SourceExerciseTitles)
    app.add_transform(ShareExerciseTitles)
    app.add_post_transform(KeepExerciseTitles)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
