"""``--batch-size auto``: the estimate of full-batch memory and the choice it drives."""

from __future__ import annotations

import torch

from gfbgcn.text.train import batching
from gfbgcn.text.train.batching import (
    MINI_BATCH,
    adjacency_entries,
    available_bytes,
    choose_batching,
    full_batch_bytes,
)

GIB = 2**30


def test_the_estimate_stays_above_the_measured_full_batch_peaks() -> None:
    # docs/benchmarks.md, "Scale: cost against corpus size": full-batch Text GCN (hidden 200)
    # peak RSS at 98,055 nodes / 38.9 M entries and 174,207 nodes / 61.6 M entries
    assert full_batch_bytes(98_055, 38_900_000, 200) >= 2.49 * GIB
    assert full_batch_bytes(174_207, 61_600_000, 200) >= 3.87 * GIB
    # and not absurdly: within 2x of them
    assert full_batch_bytes(174_207, 61_600_000, 200) <= 2 * 3.87 * GIB


def test_entries_count_both_directions_and_the_self_loops() -> None:
    assert adjacency_entries(num_nodes=10, num_doc_word=7, num_word_word=3) == 2 * 10 + 10


def test_small_graphs_train_full_batch_large_ones_on_row_budget_mini_batches() -> None:
    small = choose_batching(15_362, 3_454_070, model="gfb-max", hidden=200,
                            available=16 * GIB, fit_docs=4_937)  # R8
    assert small.batch_size == 0 and small.describe().startswith("full batch (")
    big = choose_batching(668_600, 218_100_000, model="gfb-max", hidden=200,
                          available=16 * GIB, fit_docs=300_000)  # the 383k corpus
    assert (big.batch_size, big.fanout, big.row_budget, big.optimizer) == (
        MINI_BATCH["batch_size"], MINI_BATCH["fanout"], MINI_BATCH["row_budget"], "sparse-adam")
    assert "GiB estimated for full batch" in big.describe()


def test_what_cannot_train_mini_batch_stays_full_batch() -> None:
    for kwargs in ({"model": "sgc"}, {"model": "gin"}, {"model": "gcn", "multi_label": True}):
        choice = choose_batching(10**6, 10**9, hidden=200, available=GIB, fit_docs=10**5,
                                 **kwargs)
        assert choice.batch_size == 0 and "full batch only" in choice.reason


def test_weight_decay_keeps_dense_adam_and_small_training_sets_cap_the_batch() -> None:
    choice = choose_batching(10**6, 10**9, model="gcn", hidden=200, available=GIB,
                             fit_docs=300, weight_decay=1e-4)
    assert choice.optimizer == "adam" and choice.batch_size == 300


def test_available_memory_is_a_positive_byte_count() -> None:
    assert available_bytes(torch.device("cpu")) > 0


def test_share_of_memory_decides(monkeypatch) -> None:
    need = full_batch_bytes(1000, 10_000, 16)
    fits = choose_batching(1000, 10_000, model="gcn", hidden=16, fit_docs=500,
                           available=int(need / batching.FULL_BATCH_SHARE) + 1)
    short = choose_batching(1000, 10_000, model="gcn", hidden=16, fit_docs=500,
                            available=int(need / batching.FULL_BATCH_SHARE) - 1)
    assert fits.batch_size == 0 and short.batch_size == 500
