"""The book's Sphinx extensions, in three groups; ``_config.yml`` (``sphinx: local_extensions``)
lists every one that a build loads, with a line on what it does.

- ``content``: what a page says and shows (math, live code, figures, outputs, citations, the
  edition's stamp and its PDF link);
- ``editions``: the Chinese edition (translation where Sphinx's own misses, its title, fonts and
  search) and the links between the editions' pages;
- ``theme``: the theme, lean and accessible (its template, contrast, header, logo).

``written_site``, ``npm_dependency`` and ``paths`` are what several of them share (``paths`` and
the build too, which imports them: nothing here imports the build). Nothing here rewrites the
written site for speed: that is ``bookbuild/optimize.py``, once Sphinx has written it. The
extensions import one another as ``_ext.<group>.<module>``, from the repository's root.
"""
