"""The package's public names: imported lazily (``import gfbgcn`` stays fast), and the issue's
acceptance snippet on R8."""

from __future__ import annotations

import subprocess
import sys
import time

import pytest

import gfbgcn


def test_import_gfbgcn_loads_neither_torch_nor_scikit_learn():
    code = ("import sys, gfbgcn; heavy = [m for m in ('torch', 'sklearn', 'numpy') "
            "if m in sys.modules]; print(heavy)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout
    assert out.strip() == "[]"


def test_public_names():
    from gfbgcn.text.estimator.classifier import TextGCNClassifier

    assert gfbgcn.TextGCNClassifier is TextGCNClassifier
    from gfbgcn.text.dataset.text_graph_dataset import TextGraphDataset

    assert gfbgcn.TextGraphDataset is TextGraphDataset
    assert {"TextGCNClassifier", "TextGraphDataset", "build_graph", "load",
            "load_benchmark_texts_and_labels"} <= set(dir(gfbgcn))
    assert set(gfbgcn.__all__) <= set(dir(gfbgcn))
    with pytest.raises(AttributeError, match="no attribute 'TextGCN'"):
        gfbgcn.TextGCN  # noqa: B018


@pytest.mark.realdata
def test_r8_cross_validation_acceptance(data_dir, monkeypatch):
    """The issue's snippet with a smaller, quicker model (``benchmarks/sklearn_cross_val.py``
    runs it with the defaults)."""
    import torch
    from sklearn.model_selection import cross_val_score

    from gfbgcn import TextGCNClassifier, load_benchmark_texts_and_labels

    monkeypatch.setenv("GFBGCN_DATA", str(data_dir))
    torch.set_num_threads(2)
    start = time.perf_counter()
    texts, labels = load_benchmark_texts_and_labels("r8", subset="train")
    clf = TextGCNClassifier(model="gfb-max", min_freq=5, hidden=32, epochs=40, lr=0.05)
    scores = cross_val_score(clf, texts, labels, cv=3)
    print(f"R8 3-fold accuracy {scores.mean():.4f} ({scores}), "
          f"{time.perf_counter() - start:.0f} s")
    assert scores.mean() > 0.9
