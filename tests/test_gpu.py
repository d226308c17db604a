"""On a CUDA GPU: every text model computes what it computes on the CPU, training runs end to end
on the device (text, entity and graph classification, the CLI included), and a model saved on the
GPU loads on the CPU.  Marked ``gpu``; skipped with the reason where torch sees no CUDA device
(run them with ``pytest -m gpu``).

CPU and GPU sum in different orders (and the GPU's sparse kernels accumulate with atomics), so
outputs agree to float32 rounding, measured relative to the largest logit, not bit for bit.
"""

from __future__ import annotations

import copy
import json

import numpy as np
import pytest
import torch
import torch.nn.functional as F
from torch_geometric.data import Data

import gfbgcn
from gfbgcn.cli import main
from gfbgcn.entity.model import EntityConfig
from gfbgcn.entity.train import train_once
from gfbgcn.graph_classification.batched import train_batch
from gfbgcn.graph_classification.batching import GraphBatcher
from gfbgcn.graph_classification.train import GraphTrainConfig, make_splits, train_one
from gfbgcn.nn.sparse import is_marked_symmetric, to_device
from gfbgcn.text.graph.adjacency import normalized_adjacency
from gfbgcn.text.graph.text_graph import GraphConfig, build_text_graph
from gfbgcn.text.predict.inductive import InductiveTextGCN
from gfbgcn.text.predict.saved import load_model, save_model
from gfbgcn.text.tokenize.clean import whitespace_tokenize
from gfbgcn.text.train.config import TrainConfig
from gfbgcn.text.train.models import MODELS, build_text_model
from gfbgcn.text.train.run import train_text

from .entity.conftest import toy_entities
from .reproduce.test_harness import Square
from .text.toydata import NEW_DOCS, toy_corpus

# Read at import, before tests/conftest.py hides CUDA from the tests not marked gpu.
HAS_CUDA = torch.cuda.is_available()
pytestmark = [
    pytest.mark.gpu,
    pytest.mark.skipif(not HAS_CUDA, reason="needs a CUDA GPU; torch sees none on this machine"),
]
GPU = torch.device("cuda", 0)
RTOL = 1e-5  # of the largest |logit|: float32 sums in another order


def _graph(n: int = 120, vocab: int = 60):
    corpus = toy_corpus(n=n, vocab=vocab, seed=1)
    return build_text_graph(corpus, GraphConfig(window=3, min_freq=1, stop_words=None),
                            whitespace_tokenize, cache=False)


def _adjacency(graph) -> torch.Tensor:
    data = graph.to_data()
    return normalized_adjacency(data.edge_index, data.edge_weight, data.num_nodes)


def _close(ours: torch.Tensor, reference: torch.Tensor, rtol: float = RTOL) -> float:
    """Largest difference relative to the reference's largest magnitude (asserted <= rtol)."""
    ours, reference = ours.detach().cpu(), reference.detach().cpu()
    scale = float(reference.abs().max())
    error = float((ours - reference).abs().max()) / max(scale, 1e-30)
    assert error <= rtol, f"relative difference {error:.2e} > {rtol:g}"
    return error


@pytest.mark.parametrize("name", MODELS)
def test_forward_on_the_gpu_equals_the_cpu(name: str) -> None:
    graph = _graph()
    adj = _adjacency(graph)
    torch.manual_seed(0)
    model = build_text_model(name, graph.num_nodes, len(graph.label_names), 16, 0.5).eval()
    on_gpu = copy.deepcopy(model).to(GPU)
    adj_gpu = to_device(adj, GPU)
    assert adj_gpu.is_cuda and is_marked_symmetric(adj_gpu)
    with torch.no_grad():
        _close(on_gpu(adj_gpu), model(adj))


@pytest.mark.parametrize("name", ["gcn", "gfb-max", "sgc"])
def test_gradients_on_the_gpu_equal_the_cpu(name: str) -> None:
    """The backward of the sparse product (Â reused as its own transpose) on the device."""
    graph = _graph()
    adj = _adjacency(graph)
    torch.manual_seed(0)
    model = build_text_model(name, graph.num_nodes, len(graph.label_names), 16, 0.0)
    on_gpu = copy.deepcopy(model).to(GPU)
    y = torch.as_tensor(graph.labels)
    docs = slice(0, graph.num_docs)
    F.cross_entropy(model(adj)[docs], y).backward()
    F.cross_entropy(on_gpu(to_device(adj, GPU))[docs], y.to(GPU)).backward()
    for (pname, p), q in zip(model.named_parameters(), on_gpu.parameters()):
        assert q.grad is not None and q.grad.is_cuda, pname
        _close(q.grad, p.grad, rtol=1e-4)


def test_train_text_on_the_gpu() -> None:
    graph = _graph()
    config = TrainConfig(model="gfb-max", epochs=5, hidden=16, seed=0)
    cpu = train_text(graph, config, progress=False, device="cpu")
    gpu = train_text(graph, config, progress=False, device="cuda")
    assert gpu.device.startswith("cuda:0 (") and gpu.record()["device"] == gpu.device
    assert all(p.is_cuda for p in gpu.model.parameters())
    assert gpu.epochs_run == 5 and gpu.probabilities.shape == cpu.probabilities.shape
    assert all(np.isfinite(h["train_loss"]) and np.isfinite(h["val_loss"]) for h in gpu.history)
    assert 0.0 <= gpu.test["accuracy"] <= 1.0
    # the same seed gives the same initial weights: epoch 1's validation loss (no dropout,
    # before any step) agrees; later epochs differ by the devices' dropout streams
    first_cpu, first_gpu = cpu.history[0]["val_loss"], gpu.history[0]["val_loss"]
    assert abs(first_gpu - first_cpu) <= RTOL * abs(first_cpu)


@pytest.mark.parametrize("name", ["gcn", "gfb-max", "gin"])
def test_two_gpu_runs_of_one_seed_agree_to_rounding(name: str) -> None:
    """What the CPU and GPU guide promises on CUDA: agreement to float32 rounding, not bit
    equality."""
    graph = _graph()
    config = TrainConfig(model=name, epochs=5, patience=100, hidden=16, seed=4)
    one, two = (train_text(graph, config, progress=False, device=GPU) for _ in range(2))
    for key in ("train_loss", "val_loss"):
        _close(torch.tensor([h[key] for h in two.history]),
               torch.tensor([h[key] for h in one.history]), rtol=1e-4)


def test_multilabel_training_on_the_gpu() -> None:
    graph = _graph(n=60)
    targets = np.stack([graph.labels == 0, graph.labels != 1], axis=1).astype(np.float32)
    result = train_text(graph, TrainConfig(model="gcn", epochs=3, hidden=8), progress=False,
                        multilabel_targets=targets, device=GPU)
    assert result.device.startswith("cuda:0") and 0.0 <= result.threshold <= 1.0
    assert result.probabilities.shape == (graph.num_docs, 2)


def test_saved_on_the_gpu_loads_on_the_cpu(tmp_path) -> None:
    graph = _graph()
    result = train_text(graph, TrainConfig(model="gfb-max", epochs=3, hidden=16),
                        progress=False, device=GPU)
    predictor = InductiveTextGCN.from_trained(result.model, graph, "gfb-max")
    assert predictor.device == GPU
    expected = predictor.predict_proba(NEW_DOCS)
    path = save_model(tmp_path / "model", predictor, layer_options=result.config.layer_options)
    on_cpu = load_model(path, device="cpu")
    assert on_cpu.device == torch.device("cpu") and on_cpu.w1_words.device.type == "cpu"
    _close(torch.from_numpy(on_cpu.predict_proba(NEW_DOCS)), torch.from_numpy(expected))
    on_gpu = gfbgcn.load(path, device="cuda")
    assert on_gpu.device == GPU
    _close(torch.from_numpy(on_gpu.predict_proba(NEW_DOCS)), torch.from_numpy(expected))
    assert gfbgcn.load(path).device == GPU  # auto: the GPU when there is one
    moved = on_gpu.to("cpu")  # and back
    _close(torch.from_numpy(moved.predict_proba(NEW_DOCS)), torch.from_numpy(expected))


def test_cli_train_and_predict_on_the_gpu(tmp_path, capsys) -> None:
    corpus = tmp_path / "own.csv"
    rows = ["text,label"] + [f"\"{' '.join(['goal match team'] * 3)} w{i}\",sport" if i % 2
                             else f"\"{' '.join(['bank shares market'] * 3)} w{i}\",money"
                             for i in range(30)]
    corpus.write_text("\n".join(rows) + "\n", encoding="utf-8")
    run, model_dir = tmp_path / "run", tmp_path / "model"
    assert main(["train", "--dataset", str(corpus), "--model", "gfb-max", "--min-freq", "1",
                 "--hidden", "8", "--epochs", "5", "--quiet", "--no-cache", "--device", "cuda",
                 "--out", str(run), "--save", str(model_dir)]) == 0
    assert "ms/epoch on cuda:0 (" in capsys.readouterr().out
    assert json.loads((run / "metrics.json").read_text())["device"].startswith("cuda:0 (")
    for device in ("cpu", "cuda"):
        assert main(["predict", str(model_dir), "--text", "goal match team", "--device",
                     device]) == 0
        assert capsys.readouterr().out.splitlines()[1].split(",")[1] in ("sport", "money")


def test_entity_training_on_the_gpu() -> None:
    data = toy_entities()
    for model in ("rgcn", "gfb-rgcn"):
        cfg = EntityConfig(model=model, hidden=4, epochs=30, lr=0.05)
        record = train_once(data, cfg, 3, data.train_idx, data.train_y,
                            {"test": (data.test_idx, data.test_y)}, device="cuda")
        assert record["device"].startswith("cuda:0 (") and record["epochs_run"] == 30
        assert record["final_train_loss"] < 0.1  # one training node: fitted, as on the CPU
        assert len(record["lambdas"]) == (2 if model == "gfb-rgcn" else 0)


def _toy_graphs(n: int = 24) -> list[Data]:
    """Paths (class 0) and stars (class 1) of 3-6 nodes with constant features."""
    graphs = []
    for i in range(n):
        size = 3 + i % 4
        pairs = [(0, j) for j in range(1, size)] if i % 2 else [(j, j + 1) for j in range(size - 1)]
        ei = torch.tensor(pairs).t()
        graphs.append(Data(x=torch.ones(size, 2), edge_index=torch.cat([ei, ei.flip(0)], 1),
                           y=torch.tensor([i % 2])))
    return graphs


def test_graph_batches_and_training_on_the_gpu() -> None:
    graphs = _toy_graphs()
    batcher = GraphBatcher(graphs)
    on_gpu = batcher.to(GPU)
    assert on_gpu.device == GPU and batcher.device.type == "cpu" and on_gpu.to(GPU) is on_gpu
    ids = [5, 0, 17, 3]
    for cpu_part, gpu_part in zip(batcher.batch(ids), on_gpu.batch(ids)):
        assert gpu_part.is_cuda and torch.equal(gpu_part.cpu(), cpu_part)
    split = make_splits([g.y.item() for g in graphs], folds=4, seed=0)[1]
    cfg = GraphTrainConfig(epochs=6, patience=2, batch_size=8)
    rec = train_one("gfb-gcn", graphs, split, 2, 2, 8, 2, cfg, seed=3, device="cuda")
    assert rec["device"].startswith("cuda:0 (") and 1 <= rec["best_epoch"] <= 6
    assert 0.0 <= rec["test_acc"] <= 1.0 and len(rec["lambda"]) == 2


def test_batched_graph_runs_on_the_gpu_agree_with_one_by_one() -> None:
    """A fold's configurations trained as one batched model on the GPU: each the run
    ``train_one`` makes there, to float32 rounding (dropout 0: no mask to compare); the
    caller's GPU generator is left as it was."""
    graphs = _toy_graphs()
    split = make_splits([g.y.item() for g in graphs], folds=4, seed=0)[1]
    cfg = GraphTrainConfig(epochs=3, patience=10, batch_size=8, dropout=0.0)
    shapes = [(8, 2), (4, 1), (8, 1)]
    state = torch.cuda.get_rng_state(GPU)
    runs = train_batch("gfb-sage", graphs, split, 2, 2, shapes, cfg, seed=3, device="cuda")
    assert torch.equal(torch.cuda.get_rng_state(GPU), state)
    for (hidden, layers), run in zip(shapes, runs):
        rec = train_one("gfb-sage", graphs, split, 2, 2, hidden, layers, cfg, seed=3,
                        device="cuda")
        assert run.record["device"] == rec["device"] and run.record["batched_runs"] == 3
        assert run.record["epochs_run"] == rec["epochs_run"] == 3
        assert run.record["val_loss"] == pytest.approx(rec["val_loss"], abs=1e-4)


# --- mini-batch training on the GPU --------------------------------------------------------


def _one_step_config(graph, **settings) -> TrainConfig:
    """Batch = the whole training split (one step an epoch), dropout 0: the first epoch's
    training loss is the first step's loss, which the devices must agree on."""
    n_train = int(graph.is_train.sum())
    n_train -= round(0.1 * n_train)
    return TrainConfig(model="gfb-max", hidden=16, epochs=1, patience=5, dropout=0.0,
                       batch_size=n_train, fanout=3, seed=2, **settings)


@pytest.mark.parametrize("optimizer", ["adam", "sparse-adam"])
def test_minibatch_first_step_on_the_gpu_equals_the_cpu(optimizer: str) -> None:
    graph = _graph()
    config = _one_step_config(graph, optimizer=optimizer)
    cpu = train_text(graph, config, progress=False, device="cpu")
    gpu = train_text(graph, config, progress=False, device="cuda")
    assert gpu.device.startswith("cuda:0 (") and all(p.is_cuda for p in gpu.model.parameters())
    for key in ("train_loss", "val_loss"):
        first_cpu, first_gpu = cpu.history[0][key], gpu.history[0][key]
        assert abs(first_gpu - first_cpu) <= RTOL * abs(first_cpu), key
    np.testing.assert_allclose(gpu.probabilities, cpu.probabilities, rtol=1e-4, atol=1e-5)


def test_sampler_on_the_gpu_draws_what_the_cpu_draws() -> None:
    from gfbgcn.text.train.sampler import SubgraphSampler

    adj = _adjacency(_graph())
    cpu, gpu = SubgraphSampler(adj, 3, seed=1), SubgraphSampler(to_device(adj, GPU), 3, seed=1)
    batch = torch.tensor([3, 9, 1, 30])
    rows_cpu, needed_cpu = cpu.batch_rows(batch)
    rows_gpu, needed_gpu = gpu.batch_rows(batch.to(GPU))
    assert torch.equal(needed_gpu.cpu(), needed_cpu)
    assert torch.equal(rows_gpu.to_dense().cpu(), rows_cpu.to_dense())
    a, b = cpu.presample(step=7), gpu.presample(step=7)
    assert torch.equal(b.crow_indices().cpu(), a.crow_indices())
    # the float64 prefix sums may round differently on the device: nearly every draw agrees
    same = (b.col_indices().cpu() == a.col_indices()).float().mean()
    assert float(same) > 0.999
    torch.testing.assert_close(b.values().cpu(), a.values(), rtol=1e-6, atol=0)


def test_minibatch_with_the_sampler_on_the_gpu() -> None:
    graph = _graph()
    adj = to_device(_adjacency(graph), GPU)
    config = TrainConfig(model="gcn", hidden=16, epochs=4, patience=4, batch_size=16, fanout=3)
    result = train_text(graph, config, progress=False, adj=adj, device="cuda")
    assert result.epochs_run == 4 and result.device.startswith("cuda:0 (")
    assert all(np.isfinite(h["train_loss"]) for h in result.history)


def test_two_process_nccl_minibatch(tmp_path) -> None:
    """One process per GPU under torchrun (NCCL), against one process with the same batch."""
    import os
    import subprocess
    import sys

    if torch.cuda.device_count() < 2:
        pytest.skip(f"needs two CUDA GPUs for an NCCL run; torch sees "
                    f"{torch.cuda.device_count()}")
    corpus = tmp_path / "own.csv"
    rows = ["text,label"] + [f"\"{' '.join(['goal match team'] * 3)} w{i}\",sport" if i % 2
                             else f"\"{' '.join(['bank shares market'] * 3)} w{i}\",money"
                             for i in range(40)]
    corpus.write_text("\n".join(rows) + "\n", encoding="utf-8")
    common = ["train", "--dataset", str(corpus), "--model", "gcn", "--min-freq", "1",
              "--hidden", "8", "--dropout", "0", "--epochs", "3", "--patience", "3",
              "--batch-size", "8", "--fanout", "3", "--quiet", "--no-cache", "--no-baseline",
              "--build-workers", "1", "--device", "cuda"]
    assert main([*common, "--out", str(tmp_path / "one")]) == 0
    done = subprocess.run(
        [sys.executable, "-m", "torch.distributed.run", "--standalone", "--nproc-per-node", "2",
         "-m", "gfbgcn", *common, "--out", str(tmp_path / "two")],
        env={**os.environ, "OMP_NUM_THREADS": "1"}, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    one = [float(line.split(",")[3]) for line in
           (tmp_path / "one" / "history.csv").read_text().splitlines()[1:]]
    two = [float(line.split(",")[3]) for line in
           (tmp_path / "two" / "history.csv").read_text().splitlines()[1:]]
    np.testing.assert_allclose(two, one, rtol=1e-4)


def test_reproduce_text_workers_share_one_gpu(tmp_path) -> None:
    """``reproduce text --workers 2 --device cuda``: spawned workers train on the one card."""
    from gfbgcn.reproduce.store import RunStore

    assert main(["reproduce", "text", "--datasets", "r8", "--models", "gcn", "gfb-max",
                 "--seeds", "2", "--epochs", "5", "--workers", "2", "--device", "cuda",
                 "--out", str(tmp_path)]) == 0
    records = list(RunStore(tmp_path / "raw" / "text").records())
    assert len(records) == 4
    assert all(r["device"].startswith("cuda:0 (") for r in records)
    log = json.loads((tmp_path / "raw" / "text" / "invocations.json").read_text())
    assert log[-1]["workers"] == 2 and log[-1]["device"].startswith("cuda:0 (")


def _allocate_past_the_share(task) -> dict:
    total = torch.cuda.get_device_properties(0).total_memory
    torch.empty(int(total * 0.6) // 4, dtype=torch.float32, device="cuda:0")  # > 0.95 / 2
    return {"never": True}


def test_a_gpu_worker_past_its_memory_share_is_reported_not_hung(tmp_path) -> None:
    from gfbgcn.cli.runtime.failures import describe
    from gfbgcn.reproduce import harness
    from gfbgcn.reproduce.store import RunStore

    with pytest.raises(Exception) as info:
        harness.run_pending([Square(n) for n in range(2)], RunStore(tmp_path),
                            _allocate_past_the_share, workers=2, device=GPU)
    assert describe(info.value).startswith("out of memory while running tag=sq n=")
