"""C. A degenerate run is refused (exit 2) or warned about, never reported as a result with
exit 0: empty splits, one class, classes without training documents, NaN in metrics."""

from __future__ import annotations

import json
import math

import pytest

from .conftest import FAST, documents, write_csv


def test_one_class_is_refused(cli, tmp_path):
    rows = [(t, "sport", s) for t, _, s in documents()]
    cli("train", "--dataset", write_csv(tmp_path / "c.csv", rows), *FAST).assert_user_error(
        "only one class ('sport')")


def test_empty_test_split_is_refused(cli, tmp_path):
    rows = [(t, lab, "train") for t, lab, _ in documents()]
    cli("train", "--dataset", write_csv(tmp_path / "c.csv", rows), *FAST,
           "--out", tmp_path / "run").assert_user_error("no test documents")
    assert not (tmp_path / "run").exists()


def test_empty_validation_split_is_refused(cli, corpus, tmp_path):
    # 18 training documents: 1 % of them rounds to no validation document in the random split
    # of multi-label training (the split stratified by class gives each class one)
    cli("train", "--dataset", corpus, *FAST, "--val-ratio", "0.01", "--multi-label",
           "--out", tmp_path / "run").assert_user_error("validation split is empty",
                                                        "--val-ratio 0.01")
    assert not (tmp_path / "run").exists()


def _two_training_documents(tmp_path):
    rows = [(t, lab, "train" if i % 12 == 0 else "test") for i, (t, lab, _) in
            enumerate(documents())]  # 2 training documents, of two classes
    return write_csv(tmp_path / "c.csv", rows)


def test_empty_training_split_is_refused(cli, tmp_path):
    # a 0.9 validation share of the random (multi-label) split takes both
    cli("train", "--dataset", _two_training_documents(tmp_path), *FAST, "--multi-label",
           "--val-ratio", "0.9").assert_user_error("no training documents left")


def test_stratified_split_without_a_class_of_two_is_refused(cli, tmp_path):
    # stratified by class, each class keeps its one training document: none is left to validate
    cli("train", "--dataset", _two_training_documents(tmp_path), *FAST,
           "--val-ratio", "0.9").assert_user_error("validation split is empty",
                                                   "no class has two training documents")


def test_corpus_without_any_word_is_refused(cli, tmp_path):
    rows = [("the of and" if i % 2 else "a an the", lab, s) for i, (_, lab, s) in
            enumerate(documents())]  # stop words only
    cli("train", "--dataset", write_csv(tmp_path / "c.csv", rows), *FAST, "--stop-words",
        "english").assert_user_error("no word is left after cleaning", "--min-freq 1")


def test_class_without_training_documents_is_warned_about(cli, tmp_path):
    rows = [(t, lab, "test" if lab == "food" else s) for t, lab, s in documents()]
    result = cli("train", "--dataset", write_csv(tmp_path / "c.csv", rows), *FAST)
    assert result.status == 0, result.err
    assert "warning: 1 class(es) have no training document ('food')" in result.err


@pytest.mark.parametrize("option", [("--epochs", "0"), ("--hidden", "0"),
                                    ("--val-ratio", "0"), ("--val-ratio", "1")])
def test_degenerate_settings_refused_in_the_python_api_too(option):
    from gfbgcn.core.errors import UserError
    from gfbgcn.text.train.config import TrainConfig

    name, value = option[0][2:].replace("-", "_"), float(option[1])
    with pytest.raises(UserError, match=f"^{name} must be"):  # Python names the parameter
        TrainConfig(**{name: type(getattr(TrainConfig(), name))(value)})


def test_metrics_json_is_strict_json(cli, corpus, tmp_path):
    result = cli("train", "--dataset", corpus, *FAST, "--out", tmp_path / "run")
    assert result.status == 0, result.err

    def refuse(constant):
        raise AssertionError(f"{constant} in metrics.json")

    for name in ("metrics.json", "config.json"):
        data = json.loads((tmp_path / "run" / name).read_text(), parse_constant=refuse)
        assert data
    metrics = json.loads((tmp_path / "run" / "metrics.json").read_text())
    assert math.isfinite(metrics["val"]["loss"]) and metrics["best_epoch"] >= 1


def test_diverged_training_is_refused_not_reported():
    from gfbgcn.core.errors import UserError
    from gfbgcn.text.train.checks import check_converged, json_safe

    history = [{"epoch": 1, "val_loss": math.nan}, {"epoch": 2, "val_loss": math.nan}]
    with pytest.raises(UserError, match="diverged.*nan at epoch 1.*lower lr"):
        check_converged(-1, history, 10.0)
    assert json_safe({"a": [math.nan, 1.0, math.inf]}) == {"a": [None, 1.0, None]}
