"""The book's Sphinx extensions, each named in ``_config.yml`` (``sphinx: local_extensions``).

- ``live_code``: live code on every chapter page (thebe, self-hosted; Binder or a local server);
- ``katex_math``: math typeset by KaTeX when the book is built;
- ``figure_script``: the interactive figures' script as one static file the pages share;
- ``joined_streams``: what a cell prints, as one block per stream, exactly as printed;
- ``chapter_outputs``: every chapter read again when the package it runs has changed;
- ``bib_labels``: bibliography labels in the citations' author-year form;
- ``lean_theme``: the theme without what the pages do not show;
- ``one_stylesheet``: one style sheet a page, where the theme and extensions link sixteen;
- ``accessible_pages``: named as shown, AA contrast, a header that fits a phone;
- ``icon_fonts``: the icon fonts and the style sheet's icon rules cut to the icons shown;
- ``web_images``: the figures' images fetched as a reader reaches them, their size known;
- ``lazy_sections``: a chapter's sections styled and laid out as a reader reaches them;
- ``quiet_tokens``: code blocks without the spans that look like plain text;
- ``brand``: the logo, small, beside the title;
- ``build_stamp``: the version, build date and commit in the footer and on the PDF's title page;
- ``pdf_link``: the site links to the PDF edition once ``make pdf`` has built it;
- ``edition_links``: each page links to the same page in the other language's edition;
- ``chinese_edition``: the Chinese edition's title, fonts, PDF settings and search;
- ``translation``: what Sphinx's translation machinery misses (one module per gap);
- ``npm_dependency``: the browser libraries the site serves, from ``node_modules``;
- ``written_site``: what the extensions that change the written site share (its pages, its files).

They import one another as ``_ext.<module>``, from the repository's root.
"""
