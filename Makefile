# Two commands do all the set-up on a fresh machine:
#   make run    install into .venv, then train GFB-GCN (MaxVec) on R8 and print test accuracy
#   make test   install into .venv (with the test and embeddings extras), then run the tests
PYTHON ?= python3
# Use the project's shared benchmark data when it lies beside the checkout (CI does this too).
ifneq ($(wildcard ../shared/data),)
export GFBGCN_DATA ?= $(abspath ../shared/data)
export NLTK_DATA ?= $(abspath ../shared/data/nltk_data)
endif
VENV ?= .venv
BIN := $(VENV)/bin

$(BIN)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -e ".[test,embeddings]"
	touch $@

.PHONY: install run test
install: $(BIN)/.installed

run: $(BIN)/.installed
	$(BIN)/gfbgcn train --dataset r8 --model gfb-max

test: $(BIN)/.installed
	$(BIN)/python -m pytest -q
