"""``TextGCNClassifier(tensorboard=DIR)``: each fit's epochs logged for TensorBoard as they
are trained, read back with TensorBoard's own reader; checked before any work."""

from __future__ import annotations

import pytest
from tensorboard.backend.event_processing import event_accumulator

from gfbgcn import TextGCNClassifier
from gfbgcn.core.errors import MissingExtraError, OptionError
from gfbgcn.text.estimator import classifier as classifier_module
from gfbgcn.text.estimator.tensorboard import (
    check_tensorboard,
    new_directory,
    safe_name,
    train_hparams,
)
from gfbgcn.text.search.auto import safe_label
from gfbgcn.text.search.candidates import GraphSetting
from gfbgcn.text.train.config import TrainConfig
from tests.core.test_extras import _block
from tests.text.estimator.toyfit import FAST
from tests.text.search.test_own_corpus import tiny_corpus


def read_run(directory):
    """``(scalars by tag: [(step, value)], the hparams plugin's tags)`` of a run directory."""
    acc = event_accumulator.EventAccumulator(str(directory), size_guidance={"scalars": 0})
    acc.Reload()
    scalars = {tag: [(e.step, e.value) for e in acc.Scalars(tag)]
               for tag in acc.Tags()["scalars"]}
    return scalars, set(acc.PluginTagToContent("hparams"))


def _runs(root):
    """The directories under ``root`` holding event files."""
    return sorted({p.parent for p in root.rglob("events.out.tfevents.*")})


def test_a_fit_logs_every_epoch_of_its_history(tmp_path):
    clf = TextGCNClassifier(**{**FAST, "epochs": 8}, tensorboard=str(tmp_path / "tb"))
    clf.fit_corpus(tiny_corpus(40))
    (run,) = _runs(tmp_path / "tb")
    assert run.parent == tmp_path / "tb" and run.name.endswith("-gfb-max-seed0")
    scalars, hparams = read_run(run)
    history = clf.result_.history
    for key, tag in (("train_loss", "loss/train"), ("val_loss", "loss/validation"),
                     ("val_acc", "accuracy/validation"), ("train_acc", "accuracy/train"),
                     ("lambda", "gfb/lambda")):
        assert [s for s, _ in scalars[tag]] == [e["epoch"] for e in history], tag
        assert [v for _, v in scalars[tag]] == pytest.approx([e[key] for e in history],
                                                             rel=1e-6), tag
    # best/...: the validation values of the best epoch so far (the one early stopping keeps)
    best = clf.result_.best_epoch
    assert scalars["best/val_loss"][-1][1] == pytest.approx(history[best - 1]["val_loss"])
    assert scalars["best/val_acc"][-1][1] == pytest.approx(history[best - 1]["val_acc"])
    assert {"_hparams_/experiment", "_hparams_/session_start_info"} <= hparams


def test_each_fit_is_a_run_of_its_own(tmp_path):
    """A second fit into the same directory (in the same second, as a grid search makes them)
    never adds its points to the first one's run."""
    root = tmp_path / "tb"
    for _ in range(2):
        TextGCNClassifier(**{**FAST, "epochs": 2}, tensorboard=root).fit_corpus(tiny_corpus(40))
    first, second = _runs(root)
    assert first != second
    for run in (first, second):
        assert [s for s, _ in read_run(run)[0]["loss/train"]] == [1, 2]


def test_mini_batch_and_multi_label_runs_log_their_own_values(tmp_path):
    batched = TextGCNClassifier(**{**FAST, "epochs": 2, "batch_size": 4},
                                tensorboard=tmp_path / "batch").fit_corpus(tiny_corpus(40))
    scalars, _ = read_run(_runs(tmp_path / "batch")[0])
    assert [v for _, v in scalars["time/batches"]] == \
        [e["batches"] for e in batched.result_.history]
    corpus = tiny_corpus(40)
    corpus.labels = [label if i % 3 else f"{label}|x" for i, label in enumerate(corpus.labels)]
    TextGCNClassifier(**{**FAST, "epochs": 2}, multi_label=True, baseline=False,
                      tensorboard=tmp_path / "multi").fit_corpus(corpus)
    scalars, _ = read_run(_runs(tmp_path / "multi")[0])
    assert {"f1/validation_micro", "f1/validation_macro", "best/val_micro_f1"} <= set(scalars)


def test_an_auto_search_logs_each_candidate_as_a_run(tmp_path):
    clf = TextGCNClassifier(**{**FAST, "epochs": 3}, auto=True, budget=2,
                            tensorboard=tmp_path / "tb").fit_corpus(tiny_corpus(40))
    runs = _runs(tmp_path / "tb")
    assert len(runs) == clf.auto_.trained == 2
    (fit,) = {run.parent for run in runs}
    assert fit.name.endswith("-auto-seed0")
    assert [run.name[:3] for run in runs] == ["01-", "02-"]
    assert all(read_run(run)[0]["loss/validation"] for run in runs)


def test_the_directory_and_the_package_are_checked_before_any_work(tmp_path, monkeypatch):
    """Refused in one line at ``fit``, before the graph is built or a model trained."""
    def no_training(*args, **kwargs):
        raise AssertionError("trained before the check")

    monkeypatch.setattr(classifier_module, "shared_graph", no_training)
    (tmp_path / "file").write_text("x")
    with pytest.raises(OptionError, match="tensorboard .*file: exists and is not a directory"):
        TextGCNClassifier(tensorboard=tmp_path / "file").fit_corpus(tiny_corpus(40))
    with pytest.raises(OptionError, match="tensorboard must be a directory, got 3"):
        TextGCNClassifier(tensorboard=3).fit_corpus(tiny_corpus(40))
    _block(monkeypatch, "tensorboard")
    with pytest.raises(MissingExtraError) as caught:
        TextGCNClassifier(tensorboard=tmp_path / "tb").fit_corpus(tiny_corpus(40))
    assert str(caught.value) == ("TensorBoard logging needs tensorboard: pip install "
                                 "'gfbgcn[tensorboard]'")
    assert not (tmp_path / "tb").exists()


def test_names_and_hyperparameters_are_what_tensorboard_takes(tmp_path):
    assert safe_name("a b/c:d=1") == "a_b_c_d=1" and safe_name("///") == "run"
    assert new_directory(tmp_path, "x").name == "x"
    assert new_directory(tmp_path, "x").name == "x-2"
    label = safe_label(3, GraphSetting(None, 2, 20), "gfb-mean", True, "ngram")
    assert label == "03-gfb-mean-fast+ngram-stop=none_min_freq=2_window=20"
    flat = train_hparams(TrainConfig(model="gfb-max", layer_options={"exact": True}),
                         graph={"window": 20, "stop_words": None})
    assert flat["layer_options.exact"] is True and flat["graph.stop_words"] == "none"
    assert all(isinstance(v, (bool, int, float, str)) for v in flat.values())
    assert check_tensorboard(None) is None
    assert check_tensorboard(tmp_path / "new" / "deep") == tmp_path / "new" / "deep"


def test_auto_with_a_graph_is_refused_before_a_run_is_made(tmp_path):
    """A fit refused for its arguments leaves no empty TensorBoard run behind."""
    corpus = tiny_corpus(40)
    graph = TextGCNClassifier(**FAST).build_graph(corpus)
    with pytest.raises(ValueError, match="auto=True builds its own graphs: give no graph"):
        TextGCNClassifier(**FAST, auto=True, tensorboard=tmp_path / "tb").fit_corpus(
            corpus, graph)
    assert list((tmp_path / "tb").iterdir()) == []
