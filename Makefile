# Two commands on a fresh machine:  make book   and   make test
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: book test clean

$(STAMP): requirements.txt pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --upgrade pip
	$(BIN)/python -m pip install -r requirements.txt
	touch $(STAMP)

## book: install into .venv and build the HTML site into _build/html
book: $(STAMP)
	$(BIN)/jupyter-book build . -W -n --keep-going

## test: install into .venv and run every test (builds the book too)
test: $(STAMP)
	$(BIN)/python -m pytest -ra

## live: build the site into _build/live with its live code on a local Jupyter server
## (127.0.0.1, random token, only this site's origin allowed), serve it and print the URL
.PHONY: live
live: $(STAMP)
	$(BIN)/python tools/live.py

clean:
	rm -rf _build
