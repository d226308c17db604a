# Two commands do all the set-up on a fresh machine:
#   make run    install into .venv, then train GFB-GCN (MaxVec) on R8 and print test accuracy
#   make test   install into .venv (with the test and optional extras), then lint (ruff), type-check
#               (mypy) and run the tests; a finding of either tool fails it, as a failed test does
# and one more check of the package as users get it (CI runs it after `make test`):
#   make wheel-check   build the wheel, install it into a fresh environment, train from there
#   make docs          build the documentation site into site/ (mkdocs build --strict: a broken
#                      link, a page missing from the nav or an undocumented public name fails it)
# pip takes the exact versions of constraints.txt (torch, torch-geometric, the test tools); the
# package itself only asks for ranges (pyproject.toml).
PYTHON ?= python3
# Use the project's shared benchmark data when it lies beside the checkout (CI does this too).
ifneq ($(wildcard ../shared/data),)
export GFBGCN_DATA ?= $(abspath ../shared/data)
export NLTK_DATA ?= $(abspath ../shared/data/nltk_data)
endif
VENV ?= .venv
BIN := $(VENV)/bin
PIP_INSTALL := $(BIN)/python -m pip install --quiet --disable-pip-version-check -c constraints.txt

$(BIN)/.installed: pyproject.toml constraints.txt
	$(PYTHON) -m venv $(VENV)
	$(PIP_INSTALL) -e ".[test,docs,embeddings,encoders,entity,figures,serve,tensorboard]"
	touch $@

.PHONY: install run test docs wheel-check
install: $(BIN)/.installed

run: $(BIN)/.installed
	$(BIN)/gfbgcn train --dataset r8 --model gfb-max

test: $(BIN)/.installed
	$(BIN)/ruff check src tests benchmarks docsite
	$(BIN)/mypy src
	$(BIN)/python -m pytest -q

docs: $(BIN)/.installed
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs build --strict --quiet

wheel-check:
	PYTHON=$(PYTHON) .ci/wheel-check
