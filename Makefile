# Two commands on a fresh machine:  make book   and   make test
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: book pdf tex-check test clean translations

# The PDF edition (make pdf) needs XeLaTeX, latexmk and fonts that cover every character the book
# prints; these Debian packages provide them (poppler-utils: the tests read the PDF with it).
PDF      := _build/latex/self-attention-from-scratch.pdf
PDF_ZH   := _build/zh_CN/_build/latex/self-attention-from-scratch.pdf
TEX_DEBS := texlive-xetex texlive-fonts-recommended fonts-freefont-otf fonts-noto-cjk latexmk poppler-utils
# Trained runs are kept here and shared by the HTML build, the PDF build and the tests
# (selfattn/cache.py); the key covers the config, the data and the model and training source.
RUNS     := SELFATTN_RUN_CACHE=$(CURDIR)/_build/runs
# jupyter-book build, with the chapters executed on every core (tools/build.py)
BUILD    := $(RUNS) $(BIN)/python -m tools.build -W -n --keep-going
HAVE_TEX := $(shell command -v xelatex >/dev/null && command -v latexmk >/dev/null \
              && fc-list -q FreeSerif && fc-list -q "Noto Serif CJK SC" && echo yes)

$(STAMP): requirements.txt pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --upgrade pip
	$(BIN)/python -m pip install -r requirements.txt
	touch $(STAMP)

## book: install into .venv and build the HTML site into _build/html, and the Chinese edition's
## into _build/html/zh; with XeLaTeX installed, the PDF editions are built first and the sites
## link to them
book: $(STAMP)
ifeq ($(HAVE_TEX),yes)
	$(MAKE) pdf
else
	@echo "XeLaTeX not found: building the site without the PDF edition (make pdf says what to install)."
endif
	$(BUILD)
	$(BUILD) --language zh_CN

## pdf: build the PDF editions into $(PDF) and $(PDF_ZH)
pdf: tex-check $(STAMP)
	$(BUILD) --builder pdflatex
	$(BUILD) --language zh_CN --builder pdflatex
	@ls -l $(PDF) $(PDF_ZH)

## translations: extract the English messages and merge them into the Chinese edition's catalogs
## (locale/zh_CN); new or changed messages then show up in `python -m tools.catalogs check`
translations: $(STAMP)
	$(BUILD) --all --builder custom --custom-builder gettext
	$(BIN)/python -m tools.catalogs update

tex-check:
	@test "$(HAVE_TEX)" = yes || { \
	  echo "make pdf needs XeLaTeX, latexmk and the book's fonts. On Debian or Ubuntu, install:"; \
	  echo "  sudo apt-get install --no-install-recommends $(TEX_DEBS)"; \
	  exit 1; }

## test: install into .venv and run every test (builds the book too)
test: $(STAMP)
	$(RUNS) $(BIN)/python -m pytest -ra --durations=15

## live: build the site into _build/live with its live code on a local Jupyter server
## (127.0.0.1, random token, only this site's origin allowed), serve it and print the URL
.PHONY: live
live: $(STAMP)
	$(BIN)/python -m tools.live

clean:
	rm -rf _build
