"""``python -m selfattn``: the package's commands, for the book's published runs
(:mod:`selfattn.published`): ``fetch-runs`` (Binder's postBuild) and ``publish-runs`` (make site)."""

from selfattn.published import main

main()
