"""Check translated message catalogs: every message translated, none fuzzy, markup kept.

    python -m tools.check_catalog locale/zh_CN/LC_MESSAGES/book/intro.po [...]

A translation must keep, unchanged and as many times, every piece of markup its English holds:
roles ({glue:text}`name`, {ref}`label`, {term}`word <target>` may change only the text before
the angle brackets), inline code, math, links' targets, and bold or italic markers. Prints each
problem with its message and exits 1 if there is any.
"""

from __future__ import annotations

import re
import sys
from collections import Counter
from pathlib import Path

from babel.messages.pofile import read_po

# Markup that must survive translation untouched.
KEPT = [
    re.compile(r"\{(?:glue:text|glue:any|glue|ref|numref|doc|eq|cite|cite:p|cite:t|download)\}`[^`]*`"),
    re.compile(r"(?<!\})`[^`]+`"),  # inline code
    re.compile(r"\$\$.*?\$\$|\$[^$]+\$"),  # math
    re.compile(r"\]\([^)]*\)"),  # a link's target
]
# {term}`text <target>`: the target must survive; the text may be translated.
TERM = re.compile(r"\{term\}`(?:[^`<]*<([^>`]+)>|([^`]+))`")


def markup(text: str) -> Counter:
    found = Counter()
    for pattern in KEPT:
        found.update(pattern.findall(text))
    found.update(f"term:{a or b}" for a, b in TERM.findall(text))
    return found


def problems(path: Path) -> list[str]:
    with path.open("rb") as f:
        catalog = read_po(f)
    found = []
    for message in catalog:
        if not message.id:
            continue
        where = f"{path.name}:{message.lineno}"
        if not message.string:
            found.append(f"{where}: untranslated: {message.id[:80]!r}")
        elif message.fuzzy:
            found.append(f"{where}: fuzzy: {message.id[:80]!r}")
        else:
            english = re.sub(r"\{term\}`[^`]*`", "", message.id)
            chinese = re.sub(r"\{term\}`[^`]*`", "", message.string)
            lost = markup(english) - markup(chinese)
            added = markup(chinese) - markup(english)
            terms = Counter(a or b for a, b in TERM.findall(message.id))
            terms_zh = Counter(a or b for a, b in TERM.findall(message.string))
            if lost or added or terms != terms_zh:
                found.append(
                    f"{where}: markup changed: lost {sorted(lost)} added {sorted(added)}"
                    f"{'' if terms == terms_zh else f' terms {sorted(terms)} -> {sorted(terms_zh)}'}"
                )
    return found


def main(paths: list[str]) -> int:
    found = [p for path in paths for p in problems(Path(path))]
    print("\n".join(found) if found else f"{len(paths)} catalog(s): every message translated, markup kept")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
