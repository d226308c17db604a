"""Two processes under torchrun (gloo, one machine) train the same model as one process with
the same total batch: identical validation losses per epoch and predictions, within float
tolerance.  Dropout is 0 so that no random draw depends on the process layout (the subgraph
samples are keyed by node and step, see :mod:`gfbgcn.text.train.sampler`)."""

from __future__ import annotations

import csv
import os
import subprocess
import sys

import numpy as np
import pytest

import gfbgcn
from gfbgcn.cli import main


def history(run_dir) -> list[dict[str, str]]:
    with open(run_dir / "history.csv", newline="") as fh:
        return list(csv.DictReader(fh))


@pytest.fixture()
def corpus_csv(tmp_path):
    rng = np.random.default_rng(1)
    pools = [["goal", "match", "team", "striker", "league", "cup", "coach", "score"],
             ["bank", "shares", "market", "profits", "rates", "inflation", "stock", "fund"],
             ["rain", "storm", "cloud", "sunny", "wind", "forecast", "snow", "cold"]]
    shared = ["today", "news", "report", "people", "week"]
    lines = ["text,label,split"]
    for i in range(90):
        words = list(rng.choice(pools[i % 3], 6)) + list(rng.choice(shared, 3))
        lines.append(f"\"{' '.join(words)}\",c{i % 3},{'test' if i % 5 == 4 else 'train'}")
    path = tmp_path / "tiny.csv"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


@pytest.mark.parametrize("optimizer", ["adam", "sparse-adam"])
def test_two_processes_equal_one_process_with_the_same_batch(corpus_csv, tmp_path, capsys,
                                                             optimizer):
    """sparse-adam: DDP all-reduces W1's row-sparse gradient over gloo (the rows of both
    processes, summed where they meet)."""
    common = ["train", "--optimizer", optimizer, "--dataset", str(corpus_csv), "--model", "gfb-max",
              "--min-freq", "1",
              "--hidden", "16", "--dropout", "0", "--epochs", "6", "--patience", "6",
              "--batch-size", "16", "--fanout", "3", "--seed", "4", "--threads", "1",
              "--build-workers", "1", "--quiet", "--no-cache", "--no-baseline"]
    one, two = tmp_path / "one", tmp_path / "two"
    assert main([*common, "--out", str(one / "run"), "--save", str(one / "model")]) == 0
    capsys.readouterr()
    env = {**os.environ, "OMP_NUM_THREADS": "1"}
    done = subprocess.run(
        [sys.executable, "-m", "torch.distributed.run", "--standalone", "--nproc-per-node", "2",
         "-m", "gfbgcn", *common, "--out", str(two / "run"), "--save", str(two / "model")],
        env=env, capture_output=True, text=True, timeout=240,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.count("test accuracy") == 1  # rank 0 alone reports
    h1, h2 = history(one / "run"), history(two / "run")
    assert len(h1) == len(h2) == 6
    np.testing.assert_allclose([float(h["val_loss"]) for h in h2],
                               [float(h["val_loss"]) for h in h1], rtol=1e-5, atol=1e-6)
    assert float(h1[-1]["val_loss"]) < float(h1[0]["val_loss"])  # it did learn
    # rank 0's training loss is over its half of each batch only: the batches were sharded
    assert abs(float(h2[0]["train_loss"]) - float(h1[0]["train_loss"])) > 1e-4
    docs = ["goal match team today", "bank stock fund", "storm wind cold news", "people week"]
    p1 = gfbgcn.load(one / "model").predict_proba(docs)
    p2 = gfbgcn.load(two / "model").predict_proba(docs)
    np.testing.assert_allclose(p2, p1, rtol=1e-4, atol=1e-5)
