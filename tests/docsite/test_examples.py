"""Every code example of the README and of the documentation site runs as shown.

The pages' blocks run page by page (:mod:`tests.docsite.runner` says how), each page in a
fresh directory: the README and the pages that bring their own files in an empty one, the
guides in a copy of what Getting started left (its ``reviews.csv``, ``held-out.csv``,
``reviews-model``, ``reviews-run``), as a reader who went through it has. Blocks marked
``not-run`` are counted per page against :data:`NOT_RUN`, so leaving one more out of CI is a
visible change to this file. The results pages and ``docs/benchmarks.md`` are written by the
commands they name and only list those commands (checked below); they are not examples.

Getting started is the new user's journey and is checked step by step: a model trained on a
CSV, evaluated on another labelled CSV (its files and PNG), served, a text classified with
``curl`` and, where headless Chromium is installed, from the browser page.
"""

from __future__ import annotations

import ast
import importlib.util
import json
import shutil
from collections import Counter
from collections.abc import Callable
from pathlib import Path

import pytest
import torch

from docsite.examples import NOT_RUN as REASONS
from docsite.examples import Block, blocks, page_name, problems
from tests.docsite.runner import ROOT, Page, run_page, tiny_encoder

DOCS = ROOT / "docs"
JOURNEY = "docs/getting-started.md"
#: Pages written by a command or script (they name it): results reports and the benchmarks.
GENERATED = sorted(
    [page_name(p, ROOT) for p in (DOCS / "results").glob("*.md")
     if not p.stem.endswith("_notes") and p.name != "index.md"] + ["docs/benchmarks.md"])
PAGES = sorted(["README.md", *(page_name(p, ROOT) for p in DOCS.rglob("*.md")
                               if "raw" not in p.relative_to(DOCS).parts)])
#: Pages whose examples bring all their files (they run in an empty directory).
STANDALONE = ("README.md", JOURNEY, "docs/guides/python.md", "docs/guides/pyg-layers.md",
              "docs/layers.md")
#: Pages whose examples read the benchmark data (R8, MUTAG) from the data root.
NEEDS_DATA = ("docs/guides/large-corpora.md", "docs/guides/reproduce.md")
#: Blocks each page leaves out of CI, by reason (docsite.examples.NOT_RUN says what each means).
NOT_RUN = {
    "README.md": {"long": 1},  # make run / make test
    "docs/development.md": {"ci": 1},  # make docs
    "docs/getting-started.md": {"long": 1},  # make run / make test
    "docs/guides/cpu-gpu.md": {"gpu": 1},
    "docs/guides/encoders.md": {"network": 1},  # downloading the model
    "docs/guides/large-corpora.md": {"your-data": 1, "torchrun": 1},
    "docs/guides/python.md": {"long": 1},  # cross-validation on R8 (tests/test_package.py)
    "docs/guides/reproduce.md": {"long": 1},  # the paper's tables
}


def _blocks(page: str) -> list[Block]:
    return blocks((ROOT / page).read_text(encoding="utf-8"), page)


RUNNABLE = [p for p in PAGES if p not in GENERATED and p != JOURNEY
            and any(b.runs for b in _blocks(p))]


def test_the_pages_are_found() -> None:
    assert {"README.md", JOURNEY, "docs/index.md", "docs/guides/own-data.md"} <= set(PAGES)
    assert "docs/results/text.md" in GENERATED and "docs/results/text_notes.md" not in GENERATED


@pytest.mark.parametrize("page", PAGES)
def test_code_blocks_follow_the_rules(page: str) -> None:
    assert problems((ROOT / page).read_text(encoding="utf-8"), page) == []


def test_blocks_left_out_of_ci_are_the_counted_ones() -> None:
    found = {page: dict(Counter(b.reason for b in _blocks(page) if b.mark == "not-run"))
             for page in PAGES}
    assert {p: c for p, c in found.items() if c} == NOT_RUN
    assert {r for counts in NOT_RUN.values() for r in counts} <= set(REASONS)


def test_generated_pages_only_list_the_commands_that_made_them() -> None:
    for page in GENERATED:
        for block in _blocks(page):
            assert block.mark is None, page
            for line in filter(None, map(str.strip, block.code.splitlines())):
                assert line.startswith(("gfbgcn reproduce ", "python benchmarks/")), (page, line)


# ---- the journey ---------------------------------------------------------------------------

def _is_png(path: Path) -> bool:
    return path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def _browser_classifies(page: Page) -> None:
    """The served page in headless Chromium: a pasted text gets the label the API gives."""
    from tests.serve.chromium import Chromium, chromium_binary

    if chromium_binary() is None:  # the API was checked with curl; the page needs a browser
        return
    browser = Chromium(page.cwd / "browser-profile")
    try:
        browser.open(f"http://{page.address}/")
        browser.wait_for("document.readyState === 'complete' && "
                         "!!document.getElementById('classify')")
        browser.evaluate("document.getElementById('text').value = 'the goalkeeper saved a "
                         "penalty in the final'; document.getElementById('classify').click(); "
                         "true")
        browser.wait_for("document.body.dataset.state === 'done'")
        shown = browser.evaluate("document.getElementById('answer').textContent")
        assert shown in ("Label: sport", "Label: finance"), shown
        assert browser.evaluate("document.getElementById('error').textContent") == ""
    finally:
        browser.close()
        shutil.rmtree(page.cwd / "browser-profile", ignore_errors=True)


@pytest.fixture(scope="module")
def journey(tmp_path_factory: pytest.TempPathFactory) -> Page:
    """Getting started, run once: its directory is where the guides start."""
    pytest.importorskip("starlette", reason="the serve extra is not installed")
    torch.set_num_threads(1)
    page = Page(tmp_path_factory.mktemp("getting-started"))
    run_page(page, _blocks(JOURNEY), served=_browser_classifies)
    return page


def test_getting_started_trains_evaluates_serves_and_classifies(journey: Page) -> None:
    cwd = journey.cwd
    assert {"config.json", "history.csv", "metrics.json"} <= {
        p.name for p in (cwd / "reviews-run").iterdir()}
    assert (cwd / "reviews-model" / "model.safetensors").is_file()
    if importlib.util.find_spec("matplotlib") is not None:  # `ls reviews-run`: the run's PNGs
        assert any({"curves.png", "confusion.png", "history.csv"} <= set(out.split())
                   for out in journey.outputs)
        assert all(_is_png(cwd / "reviews-run" / n) for n in ("curves.png", "confusion.png"))
    evaluation = cwd / "reviews-eval"
    listed = set(journey.outputs[-2].split())  # `ls reviews-eval`, before the server's curl
    assert {"metrics.json", "per_class.csv", "confusion.csv", "predictions.csv"} <= listed
    metrics = json.loads((evaluation / "metrics.json").read_text())
    assert 0.0 <= metrics["accuracy"] <= 1.0
    if importlib.util.find_spec("matplotlib") is not None:  # the figures extra: the PNG too
        assert "confusion.png" in listed and _is_png(evaluation / "confusion.png")
    answer = json.loads(journey.outputs[-1])  # curl's POST /predict
    (prediction,) = answer["predictions"]
    assert prediction["label"] in ("sport", "finance") and len(prediction["top_k"]) == 2


# ---- every other page ----------------------------------------------------------------------

def _readme(page: Page) -> None:
    preds = (page.cwd / "preds.csv").read_text().splitlines()
    assert preds[0] == "row,label,probability" and len(preds) == 17
    assert "row,label,probability,label_2,probability_2" in "".join(page.outputs)
    assert (page.cwd / "reviews-auto" / "auto.csv").is_file()
    labels = ast.literal_eval(page.outputs[-1].splitlines()[-1])  # print(pred.labels)
    assert isinstance(labels, list) and len(labels) == 2 and set(labels) <= {"sport", "finance"}


def _python(page: Page) -> None:
    printed = [line for out in page.outputs for line in out.splitlines()]
    assert printed[2] == "['finance' 'sport'] (2, 2)"
    assert 0.0 <= float(printed[3]) <= 1.0  # the cross-validated accuracy
    clf, again, new = (page.namespace[k] for k in ("clf", "again", "new"))
    assert list(again.predict(new)) == list(clf.predict(new))


#: What a page's run must have left, beyond running without an error.
CHECKS: dict[str, Callable[[Page], None]] = {"README.md": _readme, "docs/guides/python.md": _python}


@pytest.mark.parametrize("name", RUNNABLE)
def test_page_examples_run(name: str, tmp_path: Path, request: pytest.FixtureRequest) -> None:
    torch.set_num_threads(1)
    if name in NEEDS_DATA:
        request.getfixturevalue("data_dir")
    cwd = tmp_path / "work"
    if name in STANDALONE:
        cwd.mkdir()
    else:
        shutil.copytree(request.getfixturevalue("journey").cwd, cwd)
    if name == "docs/guides/encoders.md":
        pytest.importorskip("transformers", reason="the encoders extra is not installed")
        tiny_encoder(cwd / "all-MiniLM-L6-v2")
    page = Page(cwd)
    run_page(page, _blocks(name))
    CHECKS.get(name, lambda page: None)(page)
