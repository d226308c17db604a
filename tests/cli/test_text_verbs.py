"""The text verbs of ``gfbgcn``: data stats, data build, train, predict, reproduce text and
reproduce inductive, run through :func:`gfbgcn.cli.main` on small corpora."""

from __future__ import annotations

import csv
import io
import json
import sys

import numpy as np
import pytest

import gfbgcn
from gfbgcn.cli import main
from gfbgcn.reproduce.text import grid as experiment
from tests.text.search.test_own_corpus import write_csv
from tests.text.toydata import NEW_DOCS, skewed_corpus, write_topic_csv

# ---- gfbgcn predict (a model saved from the toy corpus) -------------------------------------


def test_predict_cli(model_dir, tmp_path, capsys, monkeypatch):
    path, in_memory = model_dir
    csv_in = tmp_path / "docs.csv"
    csv_in.write_text("id,body\n1,w1 w2 w3 w4\n2,\"w5 w5 w6 unknown\"\n", encoding="utf-8")
    out = tmp_path / "preds.csv"
    assert main(["predict", str(path), "--input", str(csv_in), "--text-col", "body",
                 "--output", str(out), "--top-k", "2", "--predict-batch", "1"]) == 0
    lines = out.read_text().splitlines()
    assert lines[0] == "row,label,probability,label_2,probability_2" and len(lines) == 3
    expected = in_memory.predict(NEW_DOCS[:2])
    assert [line.split(",")[1] for line in lines[1:]] == expected.labels
    # JSONL, --text, empty text, stdout
    jsonl = tmp_path / "docs.jsonl"
    jsonl.write_text('{"text": "w1 w2"}\n{"text": ""}\n', encoding="utf-8")
    assert main(["predict", str(path), "--input", str(jsonl), "--text", "w3"]) == 0
    captured = capsys.readouterr()
    assert len(captured.out.splitlines()) == 4
    assert "no word of the model's vocabulary" in captured.err
    # stdin, one document per line
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b"w1 w2\nw3\n")))
    assert main(["predict", str(path), "--input", "-"]) == 0
    assert len(capsys.readouterr().out.splitlines()) == 3


def test_predict_cli_non_utf8_and_large_input(model_dir, tmp_path, capsys):
    path, _ = model_dir
    bad = tmp_path / "latin1.txt"
    bad.write_bytes(b"w1 w2 caf\xe9\n\xff\xfe w3\n")
    assert main(["predict", str(path), "--input", str(bad)]) == 0
    captured = capsys.readouterr()
    assert len(captured.out.splitlines()) == 3
    assert "not valid utf-8 (first at line 1)" in captured.err
    big = tmp_path / "big.txt"
    rng = np.random.default_rng(0)
    big.write_text(" ".join(rng.choice([f"w{i}" for i in range(30)], 300_000)) + "\n")
    assert big.stat().st_size > 1_000_000
    assert main(["predict", str(path), "--input", str(big), "--output",
                 str(tmp_path / "o.csv")]) == 0
    assert len((tmp_path / "o.csv").read_text().splitlines()) == 2


def test_predict_cli_errors(model_dir, tmp_path, capsys):
    path, _ = model_dir
    assert main(["predict", str(tmp_path / "missing"), "--text", "x"]) == 2
    assert "no such model directory" in capsys.readouterr().err
    assert main(["predict", str(path)]) == 2
    csv_in = tmp_path / "docs.csv"
    csv_in.write_text("body\nw1\n")
    assert main(["predict", str(path), "--input", str(csv_in)]) == 2
    assert "no column 'text'" in capsys.readouterr().err


def test_train_own_csv_custom_columns_save_predict(tmp_path, capsys):
    """``gfbgcn train --dataset my.csv --text-col --label-col --split-col --save`` end to end."""
    rng = np.random.default_rng(0)
    pools = {"sport": ["goal", "match", "team", "striker", "league", "cup"],
             "money": ["bank", "shares", "market", "profits", "rates", "inflation"]}
    lines = ["body,topic,part"]
    for i in range(24):
        topic = "sport" if i % 2 else "money"
        part = "test" if i % 6 == 5 else "train"
        lines.append(f"\"{' '.join(rng.choice(pools[topic], 8))}\",{topic},{part}")
    path = tmp_path / "own.csv"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    model_dir = tmp_path / "own-model"
    assert main(["train", "--dataset", str(path), "--text-col", "body", "--label-col", "topic",
                 "--split-col", "part", "--model", "gcn", "--min-freq", "1", "--hidden", "16",
                 "--epochs", "30", "--quiet", "--no-cache", "--save", str(model_dir)]) == 0
    out = capsys.readouterr().out
    assert "24 documents" in out and "test accuracy" in out
    assert "(graph built in" in out  # stop words auto, the options given:
    assert "; stop words none, min_freq 1, window 20)" in out
    cfg = json.loads((model_dir / "config.json").read_text())
    assert cfg["training_data"]["train_docs"] == 20
    assert len(cfg["training_data"]["corpus_sha256"]) == 64
    model = gfbgcn.load(model_dir)
    assert model.label_names == ["money", "sport"]
    assert model.predict(["goal match team cup", "bank shares market"]).labels == ["sport", "money"]


def test_cli_multilabel_train_save_predict(tmp_path, capsys):
    rng = np.random.default_rng(0)
    sport = ["goal", "match", "team", "striker", "league", "cup"]
    money = ["bank", "shares", "market", "profits", "rates", "inflation"]
    rows = []
    for i in range(30):
        kind = i % 3
        pool = sport if kind == 0 else money if kind == 1 else sport + money
        label = ["sport", "finance", "sport|finance"][kind]
        rows.append({"text": " ".join(rng.choice(pool, 8)), "label": label,
                     "split": "test" if i % 6 == 5 else "train"})
    path = tmp_path / "ml.csv"
    with open(path, "w", newline="", encoding="utf-8") as fh:
        writer = csv.DictWriter(fh, fieldnames=["text", "label", "split"])
        writer.writeheader()
        writer.writerows(rows)
    model_dir = tmp_path / "model"
    assert main(["train", "--dataset", str(path), "--multi-label", "--model", "gcn",
                 "--min-freq", "1", "--epochs", "30", "--hidden", "16", "--quiet", "--no-cache",
                 "--val-ratio", "0.2", "--save", str(model_dir), "--out", str(tmp_path / "run")]
                ) == 0
    out = capsys.readouterr().out
    assert "micro F1" in out and "threshold" in out
    assert "one model per label (lr C=" in out  # the linear baseline beside it
    metrics = json.loads((tmp_path / "run" / "metrics.json").read_text())
    assert metrics["label_names"] == ["finance", "sport"]  # the output columns, not combinations
    assert set(metrics["baseline"]["test"]) == set(metrics["test"])
    assert metrics["baseline"]["threshold"] == metrics["baseline"]["test"]["threshold"]
    rows = list(csv.DictReader(open(tmp_path / "run" / "predictions.csv", encoding="utf-8")))
    assert {r["baseline_predicted"] for r in rows} <= {"", "finance", "sport", "finance|sport"}
    assert main(["predict", str(model_dir), "--text", "goal match team"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "row,labels,probabilities"
    model = gfbgcn.load(model_dir)
    pred = model.predict(["goal match team", "bank shares market"])
    assert model.multi_label and pred.probabilities.shape == (2, 2)
    assert all(isinstance(labels, list) for labels in pred.labels)


# ---- gfbgcn data stats | data build --------------------------------------------------------


def test_data_stats_and_build(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("GFBGCN_CACHE", str(tmp_path / "cache"))  # "built" needs an empty cache
    path = write_topic_csv(tmp_path / "own.csv")
    common = ["--dataset", str(path), "--min-freq", "1", "--window", "3"]
    assert main(["data", "stats", *common, "--json"]) == 0
    stats = json.loads(capsys.readouterr().out)
    assert (stats["dataset"], stats["docs"], stats["classes"], stats["words"]) == ("own", 24, 2, 12)
    assert stats["train_docs"] + stats["test_docs"] == 24 and stats["test_docs"] == 2
    assert main(["data", "stats", *common]) == 0
    table = capsys.readouterr().out
    assert "documents" in table and "24 (train 22 / test 2)" in table
    assert "note: no split column" in table
    assert "graph settings   stop words none, min_freq 1, window 3" in table  # auto, given
    # without the options, a small file gets the measured setting (gfbgcn.text.params)
    assert main(["data", "stats", "--dataset", str(path)]) == 0
    assert "graph settings   stop words none, min_freq 2, window 20" in capsys.readouterr().out
    assert main(["data", "build", *common, "--window", "4"]) == 0
    assert "graph built in" in capsys.readouterr().out
    assert main(["data", "build", *common, "--window", "4"]) == 0
    assert "graph already cached" in capsys.readouterr().out
    assert main(["data", "build", *common, "--no-cache"]) == 0
    assert "(not cached)" in capsys.readouterr().out


def test_data_verbs_take_the_dataset_as_a_flag(capsys):
    assert main(["data", "stats", "r8"]) == 2
    assert "--dataset" in capsys.readouterr().err


# ---- gfbgcn train --------------------------------------------------------------------------


def test_train_writes_the_run_directory(tmp_path, capsys):
    path = write_topic_csv(tmp_path / "own.csv")
    out = tmp_path / "run"
    assert main(["train", "--dataset", str(path), "--model", "gfb-mean", "--min-freq", "1",
                 "--hidden", "8", "--epochs", "3", "--quiet", "--no-cache", "--threads", "1",
                 "--fixed-lambda", "0", "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "model gfb-mean, seed 0" in printed and "lambda 0.0000" in printed
    assert {p.name for p in out.iterdir()} == {".gfbgcn", "config.json", "history.csv",
                                               "metrics.json", "predictions.csv",
                                               "curves.png", "confusion.png"}
    config = json.loads((out / "config.json").read_text())
    assert config["train"]["train_lambda"] is False
    assert config["train"]["layer_options"] == {"exact": True, "lambda_init": 0.0}
    assert json.loads((out / "metrics.json").read_text())["lambda"] == 0.0


def test_train_baseline_class_weight_reaches_the_baseline_and_its_record(tmp_path, capsys):
    path = tmp_path / "skewed.csv"
    write_csv(skewed_corpus(), path)
    base = ["train", "--dataset", str(path), "--model", "gcn", "--min-freq", "1", "--hidden",
            "8", "--epochs", "3", "--quiet", "--no-cache", "--threads", "1"]
    grids = {}
    for weight in (None, "balanced"):
        out = tmp_path / str(weight)
        flag = [] if weight is None else ["--baseline-class-weight", weight]
        assert main([*base, *flag, "--out", str(out)]) == 0
        baseline = json.loads((out / "metrics.json").read_text())["baseline"]
        assert baseline["class_weight"] == weight
        grids[weight] = [row["val_log_loss"] for row in baseline["val_grid"]]
    assert grids[None] != grids["balanced"]
    assert main([*base, "--baseline-class-weight", "inverse"]) == 2
    assert "invalid choice: 'inverse'" in capsys.readouterr().err
    # refused where no baseline is fitted: --no-baseline, a benchmark without --auto
    for argv in ([*base, "--no-baseline"], ["train", "--dataset", "r8", "--quiet"]):
        assert main([*argv, "--baseline-class-weight", "balanced"]) == 2
        assert ("error: --baseline-class-weight applies only where the linear baseline is "
                "fitted" in capsys.readouterr().err)


def test_train_class_weight_weighs_the_model_and_the_baseline_and_is_recorded(tmp_path,
                                                                              capsys):
    path = tmp_path / "skewed.csv"
    write_csv(skewed_corpus(), path)
    out = tmp_path / "run"
    assert main(["train", "--dataset", str(path), "--model", "gcn", "--min-freq", "1",
                 "--hidden", "8", "--epochs", "3", "--quiet", "--no-cache", "--threads", "1",
                 "--class-weight", "balanced", "--out", str(out)]) == 0
    assert json.loads((out / "config.json").read_text())["train"]["class_weight"] == "balanced"
    assert json.loads((out / "metrics.json").read_text())["baseline"]["class_weight"] == \
        "balanced"
    assert main(["train", "--dataset", str(path), "--class-weight", "inverse"]) == 2
    assert "invalid choice: 'inverse'" in capsys.readouterr().err


def test_train_option_errors(tmp_path, capsys):
    path = write_topic_csv(tmp_path / "own.csv")
    base = ["train", "--dataset", str(path), "--min-freq", "1", "--quiet", "--no-cache"]
    assert main([*base, "--model", "gcn", "--fast-genvec"]) == 2
    assert "error: --fast-genvec and --fixed-lambda apply to gfb-" in capsys.readouterr().err
    assert main([*base, "--model", "sgc", "--save", str(tmp_path / "m")]) == 2
    assert "two-layer" in capsys.readouterr().err


# ---- gfbgcn reproduce text | reproduce inductive (on the toy corpus) ------------------------


def _mtimes(directory):
    """Modification times of the run records (the invocation log beside them grows)."""
    return {p.name: p.stat().st_mtime_ns for p in directory.glob("*=*.json")}


def test_reproduce_text_runs_resumes_and_reports(tmp_path, toy_benchmark, capsys):
    out = tmp_path / "results"
    argv = ["reproduce", "text", "--datasets", "r8", "--models", "gcn", "sgc", "--seeds", "2",
            "--variants", "lr0.2", "--epochs", "2", "--out", str(out), "--data-dir",
            str(tmp_path / "nowhere")]
    assert main(argv) == 0
    raw = out / "raw" / "text"
    names = sorted(p.name for p in raw.glob("*=*.json"))
    assert names == sorted(f"dataset=r8__model={m}__variant={v}__seed={s}.json"
                           for m, v in (("gcn", "default"), ("sgc", "default"),
                                        ("sgc", "lr0.2")) for s in (0, 1))
    record = json.loads((raw / names[0]).read_text())
    assert record["config"]["epochs"] == 2 and "accuracy" in record["test"]
    report = (out / "text.md").read_text()
    # each model's row shows its two seeds; SGC's variant was chosen on validation
    gcn_row = next(line for line in report.splitlines() if line.startswith("| Text GCN (WAP) |"))
    assert "(2)" in gcn_row
    sgc_row = next(line for line in report.splitlines() if line.startswith("| Text SGC (WAP) |"))
    assert "(2)" in sgc_row
    assert "--data-dir" not in report and str(tmp_path) not in report
    assert "gfbgcn reproduce text --datasets r8 --models gcn sgc" in report
    assert (out / "figures" / "convergence.png").read_bytes()[:4] == b"\x89PNG"
    before = _mtimes(raw)
    assert main(argv) == 0  # resumes: nothing re-run
    assert _mtimes(raw) == before
    assert f"wrote {out / 'text.md'}" in capsys.readouterr().out


def test_reproduce_text_report_only_runs_nothing(tmp_path, monkeypatch):
    out = tmp_path / "results"
    monkeypatch.setattr(experiment, "load_benchmark", lambda *a: pytest.fail("ran a grid"))
    assert main(["reproduce", "text", "--report-only", "--out", str(out)]) == 2  # no records
    assert not out.exists()


def test_reproduce_inductive_runs_and_reports(tmp_path, toy_benchmark):
    out = tmp_path / "results"
    argv = ["reproduce", "inductive", "--datasets", "r8", "--models", "gcn", "--seeds", "1",
            "--epochs", "2", "--out", str(out)]
    assert main(argv) == 0
    (path,) = (out / "raw" / "inductive").glob("*=*.json")
    assert path.name == "dataset=r8__model=gcn__seed=0.json"
    record = json.loads(path.read_text())
    for key in ("transductive_accuracy", "inductive_zero_accuracy", "inductive_mean_accuracy"):
        assert 0.0 <= record[key] <= 1.0
    report = (out / "inductive.md").read_text()
    assert "| r8 | gcn | 0 |" in report
    assert "gfbgcn reproduce inductive --datasets r8 --models gcn --seeds 1" in report
    before = path.stat().st_mtime_ns
    assert main(argv) == 0
    assert path.stat().st_mtime_ns == before


@pytest.mark.parametrize("argv", [["train", "--dataset", "r8", "--batch-size", "-1"],
                                  ["predict", "some-model", "--text", "x", "--top-k", "0"],
                                  ["predict", "some-model", "--text", "x", "--predict-batch", "0"]])
def test_count_options_are_range_checked_when_parsed(argv, capsys):
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("error: argument --") and "must be >= " in err


def test_batch_size_auto_trains_full_batch_where_it_fits_and_says_so(tmp_path, capsys):
    path = write_topic_csv(tmp_path / "own.csv")
    out = tmp_path / "run"
    assert main(["train", "--dataset", str(path), "--model", "gcn", "--min-freq", "1",
                 "--hidden", "8", "--epochs", "2", "--quiet", "--no-cache", "--threads", "1",
                 "--out", str(out)]) == 0
    assert "batching: full batch (" in capsys.readouterr().out
    assert json.loads((out / "config.json").read_text())["train"]["batch_size"] == 0


def test_batch_size_auto_turns_to_row_budget_mini_batches_where_memory_is_short(
        tmp_path, capsys, monkeypatch):
    from gfbgcn.text.estimator import fitting  # the estimator chooses the batching

    monkeypatch.setattr(fitting, "available_bytes", lambda device: 2**20)  # 1 MiB free
    path = write_topic_csv(tmp_path / "own.csv", n=40)
    out = tmp_path / "run"
    assert main(["train", "--dataset", str(path), "--model", "gfb-max", "--min-freq", "1",
                 "--hidden", "8", "--epochs", "2", "--quiet", "--no-cache", "--threads", "1",
                 "--out", str(out), "--save", str(tmp_path / "model")]) == 0
    printed = capsys.readouterr().out
    assert "batching: mini-batch:" in printed and "optimizer sparse-adam" in printed
    train = json.loads((out / "config.json").read_text())["train"]
    # the batch is capped at the documents trained on (the training split less validation)
    assert 1 <= train["batch_size"] < 40 and train["fanout"] == 8
    assert (train["row_budget"], train["optimizer"]) == (16384, "sparse-adam")


def test_batch_size_auto_leaves_fanout_and_row_budget_to_an_explicit_size(tmp_path, capsys):
    path = write_topic_csv(tmp_path / "own.csv")
    assert main(["train", "--dataset", str(path), "--fanout", "4"]) == 2
    assert "--fanout applies only with --batch-size" in capsys.readouterr().err
