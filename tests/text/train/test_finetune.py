"""Fine-tuning a sentence encoder jointly with the graph model (BertGCN's training), on a tiny
random BERT built in the test and a two-class toy corpus: a copy of the encoder trains, the
gradient reaches it through the batch's documents only, the mixture's ends are its parts,
early stopping restores the best weights, runs repeat, and the time estimate comes from timed
steps (a fake clock: no assertion on wall time)."""

from __future__ import annotations

import itertools
import math
import re

import numpy as np
import pytest
import torch

from gfbgcn.core.errors import OptionError
from gfbgcn.core.runinfo import torch_seeded
from gfbgcn.text.graph.text_graph import GraphConfig, build_text_graph
from gfbgcn.text.train.config import TrainConfig
from gfbgcn.text.train.finetune import (
    FinetuneEstimate,
    estimate_finetune_seconds,
    finetune_step,
    mixture_log_prob,
    prepare_finetune,
    refresh_bank,
    time_run,
    train_finetune,
    weights_digest,
)
from gfbgcn.text.train.finetune import loop as finetune_loop
from gfbgcn.text.train.finetune import step as finetune_step_module
from tests.text.search.test_own_corpus import tiny_corpus

CONFIG = TrainConfig(model="gfb-max", hidden=8, epochs=3, patience=3, seed=0)
FAST = {"batch_docs": 8, "encoder_lr": 1e-3}  # a large rate: the tiny model visibly moves


@pytest.fixture(scope="module")
def encoder(tmp_path_factory: pytest.TempPathFactory):
    pytest.importorskip("transformers")  # the encoders extra
    from gfbgcn.text.encoder import load_encoder
    from tests.text.encoder.tinybert import write_plain

    return load_encoder(write_plain(tmp_path_factory.mktemp("encoder") / "tiny-bert"))


@pytest.fixture(scope="module")
def corpus():
    return tiny_corpus(40)


@pytest.fixture(scope="module")
def graph(corpus):
    return build_text_graph(corpus, GraphConfig(window=3, min_freq=1, stop_words=None),
                            cache=False, workers=1)


def _state(module: torch.nn.Module) -> dict[str, torch.Tensor]:
    return {k: v.detach().clone() for k, v in module.state_dict().items()}


def _same(a: dict[str, torch.Tensor], b: dict[str, torch.Tensor]) -> bool:
    return a.keys() == b.keys() and all(torch.equal(a[k], b[k]) for k in a)


def _run(graph, corpus, encoder, config=CONFIG, texts=None, **options):
    settings = {**FAST, **options}
    with torch_seeded(config.seed):
        run = prepare_finetune(graph, corpus.texts if texts is None else texts, encoder,
                               config, device=torch.device("cpu"), **settings)
        refresh_bank(run)
    return run


def test_a_copy_of_the_encoder_is_trained_and_the_parts_agree(graph, corpus, encoder):
    pretrained = _state(encoder.model)
    result = train_finetune(graph, corpus.texts, encoder, CONFIG, **FAST)
    assert _same(_state(encoder.model), pretrained)  # the caller's encoder: untouched
    tuned = _state(result.encoder.model)
    assert not _same(tuned, pretrained) and _same(tuned, result.encoder_state)
    assert all(not p.requires_grad for p in result.encoder.model.parameters())
    assert not result.encoder.model.training
    assert result.encoder.identity.digest == weights_digest(result.encoder_state)
    assert result.encoder.identity.digest != encoder.identity.digest
    # the bank, the graph model's features and the encoder of new documents agree
    d = graph.num_docs
    np.testing.assert_allclose(result.embeddings, result.encoder.embed(corpus.texts),
                               rtol=0, atol=1e-6)
    features = result.gcn.features.numpy()
    np.testing.assert_array_equal(features[:d], result.embeddings * np.float32(0.1))
    assert not features[d:].any()
    assert result.gcn.source.embed is not None and result.gcn.source.meta()["dim"] == 32
    # the mixture of the two parts' probabilities, and the graph part as the model computes it
    w = result.weight
    np.testing.assert_allclose(result.probabilities, w * result.graph_probabilities
                               + (1 - w) * result.head_probabilities, rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(result.probabilities.sum(axis=1), 1.0, rtol=1e-6)
    from gfbgcn.text.graph.adjacency import graph_adjacency

    with torch.no_grad():
        own = result.gcn(graph_adjacency(graph))[:d].softmax(dim=1).numpy()
    np.testing.assert_allclose(own, result.graph_probabilities, rtol=1e-5, atol=1e-6)
    assert result.epochs_run == 3 and 1 <= result.best_epoch <= 3
    assert set(result.test) >= {"accuracy", "macro_f1"} and math.isfinite(result.val["loss"])
    # the validation documents: those of the graph's split, whose loss val["loss"] is
    from gfbgcn.core.metrics import mean_log_loss
    from gfbgcn.text.mixture import choose_weight

    mask = graph.to_data(CONFIG.val_ratio, CONFIG.seed, edges=False).val_mask[:d]
    val = mask.nonzero().view(-1).numpy()
    np.testing.assert_array_equal(result.val_idx, val)
    y = np.asarray(graph.labels)
    assert result.val["loss"] == pytest.approx(
        mean_log_loss(y[result.val_idx], result.probabilities[result.val_idx]))
    # trained at w = 0.7, predicting with the weight of lowest validation log-loss
    assert result.train_weight == 0.7
    assert result.weight == choose_weight(result.graph_probabilities[val],
                                          result.head_probabilities[val], y[val])[0]
    assert result.record()["finetune"]["weight"] == result.weight
    assert result.record()["finetune"]["train_weight"] == 0.7


def test_a_step_reaches_the_encoder_through_its_batch_only(graph, corpus, encoder):
    run = _run(graph, corpus, encoder)
    bank, before = run.bank.clone(), _state(run.encoder.model)
    doc = int(run.train_idx[0])
    finetune_step(run, np.array([doc]))
    assert not _same(_state(run.encoder.model), before)
    others = torch.arange(graph.num_docs) != doc
    assert torch.equal(run.bank[others], bank[others])  # stored rows: constants of the step
    assert not torch.equal(run.bank[doc], bank[doc])  # the batch's new embedding written


def _encoder_gradient(run, doc: int) -> list[torch.Tensor]:
    """The encoder's gradient of ``log p[y]`` of the document ``doc`` as a step computes it
    (evaluation mode: no dropout draws to align)."""
    for module in run.modules().values():
        module.eval()
    run.encoder.model.zero_grad(set_to_none=True)
    ids, mask = run.tokens.padded(np.array([doc]))
    fresh = finetune_step_module.encode(run.encoder, run.encoder.model, ids, mask)
    index = torch.tensor([doc])
    log_p = mixture_log_prob(finetune_step_module.graph_logits(run, index, index, fresh),
                             run.head(fresh), run.weight)
    log_p[0, run.targets[doc]].backward()
    return [p.grad.clone() for p in run.encoder.model.parameters() if p.grad is not None]


def test_other_documents_reach_a_step_through_the_bank_alone(graph, corpus, encoder):
    """The encoder's gradient of a one-document step does not depend on the other
    documents' texts, only on their (detached) rows of the bank."""
    run = _run(graph, corpus, encoder)
    doc = int(run.train_idx[0])
    expected = _encoder_gradient(run, doc)
    assert expected and any(g.any() for g in expected)
    texts = [t if i == doc else t[::-1] for i, t in enumerate(corpus.texts)]
    other = _run(graph, corpus, encoder, texts=texts)  # other tokens, the same weights
    other.bank.copy_(run.bank)
    assert all(torch.equal(a, b) for a, b in zip(_encoder_gradient(other, doc), expected))
    other.bank[torch.arange(graph.num_docs) != doc] *= -1  # through the graph: it counts
    assert not all(torch.equal(a, b) for a, b in zip(_encoder_gradient(other, doc), expected))


@pytest.mark.parametrize("weight, frozen", [(1.0, "head"), (0.0, "gcn")])
def test_an_end_of_the_mixture_trains_the_encoder_through_one_part(graph, corpus, encoder,
                                                                   weight, frozen):
    run = _run(graph, corpus, encoder, weight=weight)
    before = {name: _state(module) for name, module in run.modules().items()}
    finetune_step(run, run.train_idx[:4].numpy())
    after = {name: _state(module) for name, module in run.modules().items()}
    assert not _same(after["encoder"], before["encoder"])  # through the graph, or the head
    assert _same(after[frozen], before[frozen])  # the other part gets a zero gradient


@pytest.mark.parametrize("weight, part", [(1.0, "graph_probabilities"),
                                          (0.0, "head_probabilities")])
def test_an_end_of_the_mixture_is_that_part_alone(graph, corpus, encoder, weight, part):
    config = TrainConfig(model="gfb-max", hidden=8, epochs=1, seed=0)
    result = train_finetune(graph, corpus.texts, encoder, config, weight=weight,
                            weight_on_validation=False, **FAST)
    assert result.weight == result.train_weight == weight
    np.testing.assert_array_equal(result.probabilities, getattr(result, part))


def test_the_mixture_log_probability():
    g, h = torch.randn(5, 3, dtype=torch.float64), torch.randn(5, 3, dtype=torch.float64)
    assert torch.equal(mixture_log_prob(g, h, 1.0), g.log_softmax(1))
    assert torch.equal(mixture_log_prob(g, h, 0.0), h.log_softmax(1))
    mixed = (0.3 * g.softmax(1) + 0.7 * h.softmax(1)).log()
    torch.testing.assert_close(mixture_log_prob(g, h, 0.3), mixed)
    far = torch.tensor([[800.0, -800.0]])  # both probabilities of class 1 underflow
    value = mixture_log_prob(far, far, 0.5)[0, 1]
    assert torch.isfinite(value) and value == pytest.approx(-1600.0)


def test_early_stopping_restores_the_best_weights(graph, corpus, encoder, monkeypatch):
    losses = iter([0.9, 0.5, 0.7, 0.8, 0.4])
    seen = []

    def fake_validate(run):
        seen.append({name: _state(m) for name, m in run.modules().items()})
        return next(losses), 0.5

    monkeypatch.setattr(finetune_loop, "validate", fake_validate)
    config = TrainConfig(model="gfb-max", hidden=8, epochs=5, patience=2, seed=0)
    result = train_finetune(graph, corpus.texts, encoder, config, **FAST)
    assert (result.best_epoch, result.epochs_run) == (2, 4)
    assert [h["val_loss"] for h in result.history] == [0.9, 0.5, 0.7, 0.8]
    assert _same(result.encoder_state, seen[1]["encoder"])
    assert _same(_state(result.gcn), seen[1]["gcn"]) and _same(_state(result.head),
                                                                seen[1]["head"])
    assert not _same(result.encoder_state, seen[3]["encoder"])


def test_runs_repeat_and_leave_the_callers_generators_alone(graph, corpus, encoder):
    torch_state, numpy_state = torch.get_rng_state(), np.random.get_state()
    a = train_finetune(graph, corpus.texts, encoder, CONFIG, **FAST)
    b = train_finetune(graph, corpus.texts, encoder, CONFIG, **FAST)
    np.testing.assert_array_equal(a.probabilities, b.probabilities)
    assert [h["val_loss"] for h in a.history] == [h["val_loss"] for h in b.history]
    assert _same(a.encoder_state, b.encoder_state)
    assert torch.equal(torch.get_rng_state(), torch_state)
    assert all(np.array_equal(x, y) for x, y in zip(np.random.get_state(), numpy_state))


def _fake_clock(step: float = 0.5):
    """A clock that advances ``step`` seconds a reading."""
    ticks = itertools.count(0.0, step)
    return lambda: next(ticks)


def test_the_estimate_comes_from_timed_steps_and_changes_nothing(graph, corpus, encoder):
    run = _run(graph, corpus, encoder)
    before = {name: _state(m) for name, m in run.modules().items()}
    bank = run.bank.clone()
    readings = []
    ticks = itertools.count(0.0, 0.5)

    def clock() -> float:
        readings.append(None)
        return next(ticks)

    estimate = time_run(run, 7, clock=clock, steps=2)
    assert len(readings) == 2 * 3  # two steps and one inference batch, each read twice
    assert estimate.timed == (0.5, 0.5, 0.5) and estimate.step_seconds == 0.5
    n_train = len(run.train_idx)
    assert estimate.steps_per_epoch == math.ceil(n_train / 8)
    sample = min(graph.num_docs, run.inference_batch)
    assert estimate.embed_seconds_per_doc == pytest.approx(0.5 / sample)
    assert estimate.refreshed_per_epoch == graph.num_docs - n_train
    assert estimate.epoch_seconds == pytest.approx(
        estimate.steps_per_epoch * 0.5 + estimate.refreshed_per_epoch * 0.5 / sample)
    assert 0 < estimate.most_seconds < math.inf and estimate.epochs == 7
    # the run is as it was: weights, bank, Adam's state
    assert all(_same(_state(m), before[name]) for name, m in run.modules().items())
    assert torch.equal(run.bank, bank) and not run.optimizer.state


def test_the_estimate_is_logged_before_training(graph, corpus, encoder):
    lines: list[str] = []
    train_finetune(graph, corpus.texts, encoder, TrainConfig(model="gfb-max", hidden=8,
                   epochs=1, seed=0), log=lines.append, clock=_fake_clock(), **FAST)
    assert len(lines) == 1
    assert re.fullmatch(r"fine-tuning on cpu: about \S+ \S+ an epoch \(\d+ steps of 0\.5 s\), "
                        r"at most 1 epochs \(up to .*\)", lines[0]), lines[0]
    # the public function: measured on the device, positive and finite
    estimate = estimate_finetune_seconds(graph, corpus.texts, encoder, CONFIG, batch_docs=8)
    assert 0 < estimate.epoch_seconds < math.inf and len(estimate.timed) == 3


def test_the_estimate_line():
    estimate = FinetuneEstimate(device="cpu", step_seconds=2.4, steps_per_epoch=342,
                                embed_seconds_per_doc=0.01, refreshed_per_epoch=0,
                                num_docs=1000, epochs=200)
    assert estimate.line() == ("fine-tuning on cpu: about 14 min an epoch (342 steps of 2.4 s),"
                               " at most 200 epochs (up to 45.6 h, the corpus embedded in 10 s "
                               "before and after)")


def test_settings_fine_tuning_cannot_use_are_refused(graph, corpus, encoder):
    with pytest.raises(OptionError, match="weight must be"):
        prepare_finetune(graph, corpus.texts, encoder, CONFIG, weight=1.5,
                         device=torch.device("cpu"))
    with pytest.raises(OptionError, match="batch_size is the graph models' mini-batch"):
        prepare_finetune(graph, corpus.texts, encoder,
                         TrainConfig(model="gfb-max", batch_size=4), device=torch.device("cpu"))
    with pytest.raises(ValueError, match="39 texts for a graph of 40 documents"):
        prepare_finetune(graph, corpus.texts[:39], encoder, CONFIG, device=torch.device("cpu"))


def test_fine_tuning_reads_at_most_max_length_tokens(graph, corpus, encoder):
    run = _run(graph, corpus, encoder, max_length=8)
    assert run.tokens.lengths.max() <= 8 and run.encoder.identity.max_length == 8
    assert run.encoder.identity.long_documents == "truncate"


def test_a_diverged_run_stops_before_embedding_with_its_weights(graph, corpus, encoder,
                                                                monkeypatch):
    monkeypatch.setattr(finetune_loop, "_epoch", lambda run, train, rng: (math.nan, 0.0))
    monkeypatch.setattr(finetune_loop, "refresh_bank", _refuse_after_the_first(
        finetune_loop.refresh_bank))
    with pytest.raises(OptionError, match="the loss became non-finite at epoch 1"):
        train_finetune(graph, corpus.texts, encoder, CONFIG, **FAST)


def _refuse_after_the_first(refresh):
    """``refresh`` for the bank's first filling, a failure after it."""
    calls = []

    def once(run, docs=None, **options):
        calls.append(docs)
        if len(calls) > 1:
            raise AssertionError("the bank was refreshed after the loss diverged")
        return refresh(run, docs, **options)

    return once
