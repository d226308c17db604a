"""``--auto`` against the simple linear text classifiers a practitioner would otherwise use.

Per corpus and seed, two parts, each in a fresh process (so that its peak RSS is its own):

* ``baselines``: four simple classifiers, each tuned on a 10 % stratified validation split of
  the training split (scikit-learn's ``train_test_split(..., stratify=y, random_state=seed)``;
  a class with one training document stays out of the validation split: :func:`validation_split`),
  refitted on the whole training split with the chosen setting and scored once on test:

  (a) word 1-2-gram TF-IDF (sublinear tf) + ``LogisticRegression`` (lbfgs), C in 1, 10, 100;
  (b) word 1-2-gram + ``char_wb`` 2-5-gram TF-IDF (sublinear tf) + ``LinearSVC``, C in 0.1,
      0.3, 1, 3;
  (c) ``ComplementNB`` on word 1-2-gram counts, alpha in 0.1, 0.3, 1;
  (d) ``SGDClassifier(loss="modified_huber")`` on (b)'s features, alpha in 1e-5, 3e-5, 1e-4,
      3e-4.

  "Best baseline" is, per seed, the one of the four with the highest validation accuracy
  (chosen on validation, never on test).
* ``encoders`` (with ``--encoder``): two more simple classifiers on a frozen sentence encoder's
  normalised document embeddings, with the same protocol:

  (e) the embeddings + ``LogisticRegression`` (lbfgs), C in 0.1, 1, 10, 100;
  (f) (b)'s features with the embeddings times ``s`` beside them + ``LinearSVC``, C in 0.1,
      0.3, 1, 3 and ``s`` in 0.5, 1, 2.

  "Best of six" is, per seed, the one of (a)-(f) with the highest validation accuracy.
* ``auto``: one ``gfbgcn train --dataset X --auto`` search as the command runs it
  (:func:`gfbgcn.text.search.auto.run_auto` with the corpus's default tokenizer and the
  defaults of ``TrainConfig``), its graph part (the best graph-only candidate on validation),
  that candidate combined with the built-in baseline, and the built-in baseline itself.

* ``auto-encoder`` (with ``--encoder``): the search of ``gfbgcn train --dataset X --auto
  --encoder MODEL``: ``auto``'s with the encoder head, the built-in baseline with the
  embeddings beside its n-grams and the graph model on the embeddings as candidates too
  (embeddings read from the embedding cache, which the ``encoders`` part fills).

Each part records test accuracy, macro F1, wall and CPU seconds (``time.process_time``: all
threads of the process), peak RSS, and the test predictions, from which the report computes
McNemar's exact test (two-sided binomial on the discordant pairs) of ``--auto`` (and of its
graph part) against the best baseline, seed by seed.

Records go to ``--out`` (one JSON per corpus, seed and part; existing ones are kept, so an
interrupted run resumes); the report to ``--report`` (default docs/results/vs-linear.md).

    python benchmarks/vs_linear.py --datasets customer-reviews mpqa-opinion --seeds 3 \\
        --out docs/results/raw/vs-linear --threads 1
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

from _candidates import save_candidates
from gfbgcn.text.params import default_tokenizer

ROOT = Path(__file__).resolve().parent.parent
EXTRA = ("customer-reviews", "mpqa-opinion", "subjectivity", "slo-opinion",
         "election-tweets-2016")
BASELINES = {
    "a": "word 1-2 TF-IDF + LR",
    "b": "word 1-2 + char 2-5 TF-IDF + LinearSVC",
    "c": "ComplementNB on 1-2-gram counts",
    "d": "SGD modified Huber on (b)'s features",
}


def load_corpus(name: str):
    """A CSV of ``<data>/text-extra`` (text,label,split) or a benchmark name."""
    from gfbgcn.core.paths import data_root
    from gfbgcn.text.corpus.benchmarks import load_benchmark
    from gfbgcn.text.corpus.table import load_table

    if name in EXTRA:
        return load_table(data_root(None) / "text-extra" / f"{name}.csv")
    return load_benchmark(name)


def _peak_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def _metrics(y: np.ndarray, pred: np.ndarray, num_classes: int) -> dict[str, float]:
    from gfbgcn.core.metrics import classification_metrics

    m = classification_metrics(y, pred, num_classes)
    return {"accuracy": m["accuracy"], "macro_f1": m["macro_f1"]}


# ---------------------------------------------------------------------------------------------
# The four simple baselines


def _tfidf(analyzer: str, ngrams: tuple[int, int]):
    from sklearn.feature_extraction.text import TfidfVectorizer

    return TfidfVectorizer(analyzer=analyzer, ngram_range=ngrams, sublinear_tf=True)


def _features(kind: str, fit_texts: list[str], texts: list[list[str]]):
    """``kind`` features fitted on ``fit_texts``, for each list of ``texts``."""
    import scipy.sparse as sp
    from sklearn.feature_extraction.text import CountVectorizer

    if kind == "word":
        vec = _tfidf("word", (1, 2)).fit(fit_texts)
        return [vec.transform(t) for t in texts]
    if kind == "counts":
        vec = CountVectorizer(ngram_range=(1, 2)).fit(fit_texts)
        return [vec.transform(t) for t in texts]
    word = _tfidf("word", (1, 2)).fit(fit_texts)
    char = _tfidf("char_wb", (2, 5)).fit(fit_texts)
    return [sp.hstack([word.transform(t), char.transform(t)], format="csr") for t in texts]


def _classifier(key: str, value: float, seed: int):
    from sklearn.linear_model import LogisticRegression, SGDClassifier
    from sklearn.naive_bayes import ComplementNB
    from sklearn.svm import LinearSVC

    return {"a": lambda: LogisticRegression(C=value, max_iter=1000),
            "b": lambda: LinearSVC(C=value, random_state=seed),
            "c": lambda: ComplementNB(alpha=value),
            "d": lambda: SGDClassifier(loss="modified_huber", alpha=value,
                                       random_state=seed)}[key]()


GRIDS = {"a": ("word", "C", (1.0, 10.0, 100.0)), "b": ("wordchar", "C", (0.1, 0.3, 1.0, 3.0)),
         "c": ("counts", "alpha", (0.1, 0.3, 1.0)),
         "d": ("wordchar", "alpha", (1e-5, 3e-5, 1e-4, 3e-4))}
ENCODER_BASELINES = {
    "e": "encoder embeddings + LR",
    "f": "(b)'s features + encoder embeddings + LinearSVC",
}
ENCODER_C = {"e": (0.1, 1.0, 10.0, 100.0), "f": (0.1, 0.3, 1.0, 3.0)}
#: Test accuracy (%) published for BertGCN and RoBERTaGCN (Lin et al. 2021, "BertGCN:
#: Transductive Text Classification by Combining GCN and BERT", Findings of ACL 2021): a fine-tuned
#: BERT-base / RoBERTa-base encoder with a GCN over the Text GCN graph.
BERTGCN = {"20ng": (89.3, 89.5), "r8": (98.1, 98.2), "r52": (96.6, 96.1),
           "ohsumed": (72.8, 72.8)}
ENCODER_SCALES = (0.5, 1.0, 2.0)


def corpus_embeddings(corpus, encoder: str):
    """The corpus embedded by ``encoder`` through the embedding cache (filled once)."""
    from gfbgcn.text.estimator.fitting import embed_corpus

    return embed_corpus(encoder, corpus, "cpu", cache=True, progress=False)


def _encoder_classifier(key: str, c: float, seed: int):
    from sklearn.linear_model import LogisticRegression
    from sklearn.svm import LinearSVC

    return LogisticRegression(C=c, max_iter=1000) if key == "e" else \
        LinearSVC(C=c, random_state=seed)


def run_encoders(corpus, seed: int, encoder: str) -> dict[str, Any]:
    """(e) and (f) with the protocol of the module docstring."""
    import warnings

    import scipy.sparse as sp
    from sklearn.exceptions import ConvergenceWarning

    start = time.perf_counter()
    emb = corpus_embeddings(corpus, encoder).embeddings.astype(np.float64)
    embed_seconds = time.perf_counter() - start
    y = np.asarray(corpus.label_ids())
    texts = list(corpus.texts)
    train = np.flatnonzero(corpus.is_train)
    test = np.flatnonzero(~np.asarray(corpus.is_train))
    fit, val = validation_split(train, y, seed)
    k = len(corpus.label_names)

    def stacked(x, rows, s):
        return sp.hstack([x, sp.csr_matrix(emb[rows] * s)], format="csr")

    out: dict[str, Any] = {}
    for key in ENCODER_BASELINES:
        wall, cpu = time.perf_counter(), time.process_time()
        # per scale: the (fit, val, train, test) rows
        if key == "e":
            mats = {1.0: (emb[fit], emb[val], emb[train], emb[test])}
        else:
            wf, wv = _features("wordchar", [texts[i] for i in fit],
                               [[texts[i] for i in fit], [texts[i] for i in val]])
            wt, ws = _features("wordchar", [texts[i] for i in train],
                               [[texts[i] for i in train], [texts[i] for i in test]])
            mats = {s: (stacked(wf, fit, s), stacked(wv, val, s), stacked(wt, train, s),
                        stacked(ws, test, s)) for s in ENCODER_SCALES}
        points = [(c, s) for s in mats for c in ENCODER_C[key]]
        scores = {}
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            for c, s in points:
                clf = _encoder_classifier(key, c, seed).fit(mats[s][0], y[fit])
                scores[(c, s)] = float((clf.predict(mats[s][1]) == y[val]).mean())
            best = max(points, key=lambda p: scores[p])  # ties: the first
            pred = _encoder_classifier(key, best[0], seed).fit(
                mats[best[1]][2], y[train]).predict(mats[best[1]][3])
        out[key] = {"name": ENCODER_BASELINES[key], "C": best[0], "scale": best[1],
                    "val_accuracy": scores[best],
                    "val_by_value": {f"C={c:g} s={s:g}": v for (c, s), v in scores.items()},
                    "test": _metrics(y[test], pred, k),
                    "wall_seconds": time.perf_counter() - wall,
                    "cpu_seconds": time.process_time() - cpu,
                    "predictions": pred.tolist()}
    return {"baselines": out, "test_labels": y[test].tolist(), "peak_rss_mib": _peak_mib(),
            "embed_seconds": embed_seconds, "encoder": Path(encoder).name}


def validation_split(train: np.ndarray, y: np.ndarray, seed: int
                     ) -> tuple[np.ndarray, np.ndarray]:
    """``(fit, val)``: a 10 % stratified validation split of the training documents ``train``.
    A class with a single training document (R52 has one) cannot be stratified: its document
    stays in ``fit`` and the others are split as usual (without such classes: exactly
    ``train_test_split(train, test_size=0.1, stratify=y[train], random_state=seed)``)."""
    from sklearn.model_selection import train_test_split

    single = np.bincount(y[train])[y[train]] < 2
    rest = train[~single]
    fit, val = train_test_split(rest, test_size=0.1, stratify=y[rest], random_state=seed)
    return np.concatenate([train[single], fit]), val


def run_baselines(corpus, seed: int) -> dict[str, Any]:
    """The four baselines with the protocol of the module docstring."""
    import warnings

    from sklearn.exceptions import ConvergenceWarning

    y = np.asarray(corpus.label_ids())
    texts = list(corpus.texts)
    train = np.flatnonzero(corpus.is_train)
    test = np.flatnonzero(~np.asarray(corpus.is_train))
    fit, val = validation_split(train, y, seed)
    k = len(corpus.label_names)
    out: dict[str, Any] = {}
    for key, (kind, param, values) in GRIDS.items():
        wall, cpu = time.perf_counter(), time.process_time()
        x_fit, x_val = _features(kind, [texts[i] for i in fit],
                                 [[texts[i] for i in fit], [texts[i] for i in val]])
        scores = {}
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            for v in values:
                clf = _classifier(key, v, seed).fit(x_fit, y[fit])
                scores[v] = float((clf.predict(x_val) == y[val]).mean())
            best = max(values, key=lambda v: scores[v])  # ties: the first (smallest) value
            x_train, x_test = _features(kind, [texts[i] for i in train],
                                        [[texts[i] for i in train], [texts[i] for i in test]])
            pred = _classifier(key, best, seed).fit(x_train, y[train]).predict(x_test)
        out[key] = {"name": BASELINES[key], param: best, "val_accuracy": scores[best],
                    "val_by_value": {f"{v:g}": s for v, s in scores.items()},
                    "test": _metrics(y[test], pred, k),
                    "wall_seconds": time.perf_counter() - wall,
                    "cpu_seconds": time.process_time() - cpu,
                    "predictions": pred.tolist()}
    return {"baselines": out, "test_labels": y[test].tolist(), "peak_rss_mib": _peak_mib()}


# ---------------------------------------------------------------------------------------------
# --auto


def run_auto_part(corpus, name: str, seed: int, out_npz: Path | None = None,
                  encoder: str | None = None) -> dict[str, Any]:
    """One ``--auto`` search as ``gfbgcn train --dataset X --auto --seed S`` (``--encoder
    MODEL``) runs it; ``out_npz``: where every candidate's validation probabilities and test
    predictions go (:func:`_candidate_arrays`)."""
    from gfbgcn.text.predict.combined import mix
    from gfbgcn.text.search.auto import chosen_summary, run_auto
    from gfbgcn.text.tokenize.registry import make_tokenizer
    from gfbgcn.text.train.config import TrainConfig

    tokenizer = default_tokenizer(benchmark=name not in EXTRA)
    wall, cpu = time.perf_counter(), time.process_time()
    embedded = None if encoder is None else corpus_embeddings(corpus, encoder)
    # no graph cache: every search builds its graphs, as a first run on a new corpus does
    auto = run_auto(corpus, make_tokenizer(tokenizer), TrainConfig(seed=seed),
                    log=lambda _: None, device="cpu", cache=False, encoder=embedded)
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    g, b = auto.graph, auto.baseline
    test = np.flatnonzero(~np.asarray(g.is_train))
    y, k = g.labels[test], len(g.label_names)
    c = auto.chosen
    chosen_linear = auto.linear_of(c)
    probs = auto.result.probabilities if chosen_linear is None else \
        mix(auto.result.probabilities, chosen_linear.probabilities, c.weight)
    part = auto.best_graph_only()
    part_probs = auto.result_of(part).probabilities
    combo = next(x for x in auto.candidates if x.predictor == "graph+linear"
                 and x.setting == part.setting and x.model == part.model
                 and x.fast == part.fast and x.features == part.features)
    partner = auto.linear_of(combo)
    assert partner is not None
    combo_probs = mix(part_probs, partner.probabilities, combo.weight)
    preds = {"auto": probs[test].argmax(1), "graph_part": part_probs[test].argmax(1),
             "combined": combo_probs[test].argmax(1), "builtin": b.probabilities[test].argmax(1)}
    if encoder is not None:  # the encoder head and the stacked model (then any smoothed one)
        for linear, row in zip(auto.linears[1:3], ("encoder_head", "builtin_encoder")):
            preds[row] = linear.probabilities[test].argmax(1)
    if auto.smoothing_source is not None:  # the linear answer without its smoothing
        preds["unsmoothed"] = auto.linears[auto.smoothing_source].probabilities[test].argmax(1)
    return {
        "candidates": _candidate_arrays(auto, out_npz),
        "choice": chosen_summary(auto),
        "graph_part_model": f"{part.model_label} ({part.setting.label()})",
        "combined_weight": combo.weight,
        "builtin_classifier": b.model.description,
        # graph rows only: a combination row carries its graph candidate's stopped_at
        "stopped_graph": sum(x.stopped_at is not None for x in auto.candidates
                             if x.predictor == "graph"),
        "trained": auto.trained,
        "encoder": None if encoder is None else Path(encoder).name,
        "embed_seconds": None if embedded is None else embedded.seconds,
        **{key: {"test": _metrics(y, p, k), "predictions": p.tolist()}
           for key, p in preds.items()},
        "test_labels": y.tolist(),
        "wall_seconds": wall, "cpu_seconds": cpu, "peak_rss_mib": _peak_mib(),
    }


def _candidate_arrays(auto, out_npz: Path | None) -> list[dict[str, Any]]:
    """The search's candidate table (rows of ``auto.csv``, in the search's order) for the
    record; with ``out_npz``, beside it the arrays a study of selection rules needs
    (``benchmarks/selection_study.py``), all on the validation documents in the baseline's
    ``val_idx`` order except the test predictions:

    * ``val_labels``, ``test_labels``;
    * ``linears_val_proba`` ``[L, V, C]``: the linear models' held-out validation
      probabilities (fitted without the validation documents: what the combinations' weights
      are chosen on), the built-in baseline's first (``_candidates.baseline_val_proba``);
    * ``graph_val_proba`` ``[G, V, C]``: every graph-only candidate's, in table order;
    * ``test_pred`` ``[K, T]``: every candidate's test predictions (combinations at their
      chosen weight, the baseline refitted), in table order.
    """
    from gfbgcn.text.predict.combined import mix

    b, g = auto.baseline, auto.graph
    test = np.flatnonzero(~np.asarray(g.is_train))
    vi = b.val_idx
    rows, graph_val, test_pred = [], [], []
    for c in auto.candidates:
        rows.append({**c.row(), "chosen": c is auto.chosen})
        linear = auto.linear_of(c)
        if c.predictor == "linear":
            assert linear is not None
            probs = linear.probabilities
        else:
            probs = auto.result_of(c).probabilities
            if c.predictor == "graph":
                graph_val.append(probs[vi].astype(np.float32))
            else:
                assert linear is not None
                probs = mix(probs, linear.probabilities, c.weight)
        test_pred.append(probs[test].argmax(1).astype(np.int16))
    if out_npz is not None:
        # the linear models' held-out validation probabilities: the baseline's first, then
        # (with an encoder) the encoder head's and the stacked baseline's, then the smoothed
        # copy where it was kept; float32 as the graph candidates' (the readers compute in
        # float64), which keeps R52's four [V, 52] tables under the size limit for tracked files
        save_candidates(out_npz, val_labels=g.labels[vi], test_labels=g.labels[test],
                        linears_val_proba=np.stack([x.val_proba() for x in auto.linears]
                                                   ).astype(np.float32),
                        graph_val_proba=np.stack(graph_val), test_pred=np.stack(test_pred))
    return rows


# ---------------------------------------------------------------------------------------------
# Driver and report


def _record_path(out: Path, dataset: str, seed: int, part: str) -> Path:
    return out / f"{dataset}_seed{seed}_{part}.json"


def one(dataset: str, seed: int, part: str, out: Path, threads: int,
        encoder: str | None = None) -> None:
    import torch

    from gfbgcn.core.io import atomic_write_json

    torch.set_num_threads(threads)
    corpus = load_corpus(dataset)
    path = _record_path(out, dataset, seed, part)
    npz = path.with_name(path.stem + "_candidates.npz")
    if part in ("encoders", "auto-encoder") and encoder is None:
        raise SystemExit(f"part {part} needs --encoder")
    if part == "baselines":
        rec = run_baselines(corpus, seed)
    elif part == "encoders":
        assert encoder is not None
        rec = run_encoders(corpus, seed, encoder)
    else:
        rec = run_auto_part(corpus, dataset, seed, npz,
                            encoder if part == "auto-encoder" else None)
    rec.update(dataset=dataset, seed=seed, part=part)
    atomic_write_json(path, rec)


def mcnemar(y: np.ndarray, a: np.ndarray, b: np.ndarray) -> tuple[int, int, float]:
    """``(a right b wrong, a wrong b right, exact two-sided p)`` on paired predictions."""
    from scipy.stats import binomtest

    ra, rb = a == y, b == y
    n01, n10 = int((ra & ~rb).sum()), int((~ra & rb).sum())
    p = 1.0 if n01 + n10 == 0 else float(binomtest(min(n01, n10), n01 + n10, 0.5).pvalue)
    return n01, n10, p


def _pm(values: list[float], scale: float = 100.0, digits: int = 2) -> str:
    if not values:
        return "–"
    v = np.asarray(values) * scale
    return f"{v.mean():.{digits}f}" if len(v) == 1 else \
        f"{v.mean():.{digits}f} ± {v.std(ddof=1):.{digits}f}"


def _plus_linear(rec: dict[str, Any]) -> str:
    """" + linear" when ``--auto`` chose the graph model combined with the linear baseline."""
    return " + linear" if rec["choice"]["predictor"] != "graph" else ""


def _stopped(rec: dict[str, Any]) -> int:
    """Graph candidates the search stopped early.  Records written before 2026-11-26 08:10 UTC
    have ``stopped``, which counted each stopped candidate twice (its graph row and its
    combination's, which carries the same ``stopped_at``; every search here fitted the
    baseline, so every graph row has exactly one combination row)."""
    return rec["stopped_graph"] if "stopped_graph" in rec else rec["stopped"] // 2


def best_of_six(recs: dict, ds: str) -> dict[int, tuple[str, dict]]:
    """Per seed with both records, the one of (a)-(f) of highest validation accuracy (ties:
    the earlier letter): seed -> (its letter, its baseline record)."""
    six = {}
    for (d, s, p), e in recs.items():
        if d == ds and p == "encoders" and (ds, s, "baselines") in recs:
            pool = {**recs[(ds, s, "baselines")]["baselines"], **e["baselines"]}
            k = max(pool, key=lambda k: (pool[k]["val_accuracy"], -ord(k)))
            six[s] = (k, pool[k])
    return dict(sorted(six.items()))


def _beside_bertgcn(recs: dict, datasets: list[str]) -> list[str]:
    """Our searches on the paper's benchmarks, and the best of six simple baselines, beside
    BertGCN's published test accuracy."""
    rows = []
    for ds in datasets:
        if ds not in BERTGCN:
            continue
        cells = []
        for part in ("auto", "auto-encoder"):
            acc = [r["auto"]["test"]["accuracy"] for (d, s, p), r in recs.items()
                   if d == ds and p == part]
            cells.append(_pm(acc) + f" ({len(acc)})" if acc else "–")
        six = [b["test"]["accuracy"] for _, b in best_of_six(recs, ds).values()]
        cells.append(_pm(six) + f" ({len(six)})" if six else "–")
        rows.append(f"| {ds} | {cells[0]} | {cells[1]} | {cells[2]} | {BERTGCN[ds][0]:.1f} | "
                    f"{BERTGCN[ds][1]:.1f} |")
    if not rows:
        return []
    return ["## The paper's benchmarks beside BertGCN's published numbers", "",
            "Test accuracy in %: ours mean ± std (seeds); BertGCN and RoBERTaGCN as published "
            "(Lin et al. 2021), which fine-tune a 110M-parameter BERT-base or a "
            "125M-parameter RoBERTa-base jointly with a GCN, where `--auto --encoder` uses a "
            "frozen 22.7M-parameter all-MiniLM-L6-v2 beside the n-gram and graph models; "
            "\"best of six\": the simple baseline of highest validation accuracy, per seed.", "",
            "| data set | `--auto` | `--auto --encoder` | best of six | BertGCN | RoBERTaGCN |",
            "|---|---|---|---|---|---|", *rows, ""]


def _choice(r: dict[str, Any]) -> str:
    """What a search record chose, in words."""
    c = r["choice"]
    if c["predictor"] == "linear":
        return f"the linear model {c.get('linear')} ({c.get('features')})"
    return (f"{c['model']}{_plus_linear(r)} (features {c.get('features', 'onehot')}, stop "
            f"{c['stop_words'] or 'none'}, min_freq {c['min_freq']}, window {c['window']})")


def _mcnemar_cell(y: np.ndarray, a: list[int], b: list[int]) -> str:
    n01, n10, p = mcnemar(y, np.asarray(a), np.asarray(b))
    return f"{n01} / {n10}, p = {p:.3g}"



def _smoothing_lines(rows: list[dict[str, Any]], part: str) -> list[str]:
    """What the cross-fitted smoothing choice found per seed (records that have it)."""
    found = [(r["seed"], r["choice"]["smoothing"]) for r in rows
             if r["choice"].get("smoothing")]
    if not found:
        return []
    words = []
    for seed, sm in found:
        if sm.get("graph") is None:
            words.append(f"seed {seed}: not tried ({sm.get('reason', '')})")
            continue
        words.append(f"seed {seed}: over {sm['graph']} (alpha={sm['alpha']:g}) "
                     f"{'kept' if sm['kept'] else 'not kept'}, cross-validated "
                     f"{100 * sm['cv_accuracy']:.2f} against {100 * sm['cv_base_accuracy']:.2f} "
                     f"({sm['better']} / {sm['worse']})")
    return [f"Smoothing of {part}'s linear answer (best configuration on the training "
            "documents' held-out folds; documents it gets right / wrong against the "
            "unsmoothed model there): " + "; ".join(words) + ".", ""]


def _smoothing_table(rows: list[tuple[str, str, list[dict]]]) -> list[str]:
    """The answer minus the unsmoothed linear answer, per corpus and search."""
    if not rows:
        return []
    lines = ["## Summary: smoothing over the documents' graph (test accuracy, points)", "",
             "The answer minus the same linear model unsmoothed, mean over the seeds; kept: in "
             "how many seeds the cross-fitted choice kept the smoothing; McNemar (exact, "
             "two-sided) of the answer against the unsmoothed model, all seeds' test "
             "documents pooled.", "",
             "| data set | search | n | kept | answer | unsmoothed | difference | "
             "n01 / n10, p |", "|---|---|---|---|---|---|---|---|"]
    diffs: dict[str, list[float]] = {}
    for ds, part, recs in rows:
        a = [100 * r["auto"]["test"]["accuracy"] for r in recs]
        u = [100 * r["unsmoothed"]["test"]["accuracy"] for r in recs]
        kept = sum(bool(r["choice"].get("smoothing", {}).get("kept")) for r in recs)
        y = np.concatenate([r["test_labels"] for r in recs])
        pa = np.concatenate([r["auto"]["predictions"] for r in recs])
        pu = np.concatenate([r["unsmoothed"]["predictions"] for r in recs])
        n01, n10, p = mcnemar(y, pa, pu)
        diffs.setdefault(part, []).append(np.mean(a) - np.mean(u))
        lines.append(f"| {ds} | {part} | {len(recs)} | {kept} | {np.mean(a):.2f} | "
                     f"{np.mean(u):.2f} | {np.mean(a) - np.mean(u):+.2f} | "
                     f"{n01} / {n10}, p = {p:.3g} |")
    lines.append("")
    lines += [f"Mean difference, {part}: {np.mean(d):+.2f} points over {len(d)} corpora, "
              f"lowest {min(d):+.2f}." for part, d in diffs.items()]
    return lines + [""]


def _rule_name() -> str:
    """The library's selection rule, by its name (``baseline``: the protected linear model)."""
    from gfbgcn.text.search.selection import RULE

    return RULE.name

def render(out: Path, datasets: list[str], command: str, machine: str, notes: str = "") -> str:
    """The report from the records in ``out`` (``notes``: hand-written, appended)."""
    recs: dict[tuple[str, int, str], dict] = {}
    for path in sorted(out.glob("*.json")):
        r = json.loads(path.read_text(encoding="utf-8"))
        recs[(r["dataset"], r["seed"], r["part"])] = r
    lines = ["# `--auto` against simple linear text classifiers", "",
             "Written by `benchmarks/vs_linear.py` (its docstring gives the protocol) from the "
             "records in `raw/vs-linear/`. Test accuracy and macro F1 in %, mean ± sample std "
             "over the seeds in column n; wall and CPU seconds per run (CPU: all threads of "
             "the process), peak RSS of the part's process. (a)-(d) are tuned on a 10 % "
             "stratified validation split of the training split and refitted on the whole "
             "training split; \"best baseline\" is, per seed, the one of (a)-(d) with the "
             "highest validation accuracy. `--auto` is `gfbgcn train --dataset X --auto` "
             "(its own validation split: 10 % of the training split, drawn with the seed); "
             "\"graph part\" its best graph-only candidate on validation, \"combined\" that "
             "candidate mixed with the built-in baseline, \"built-in\" the built-in linear "
             "baseline inside `--auto`. `--auto`'s answer is the candidate its selection "
             "rule picks (`gfbgcn.text.search.selection.RULE`: "
             f"`{_rule_name()}`, `selection-rules-encoder.md`); where a record says "
             "`auto_before`, the answer was re-derived from its recorded candidates by "
             "`benchmarks/vs_linear_rechoose.py` (the notes say why that is exact). Since "
             "2026-12-03 the search judges its linear models on five folds of the training "
             "documents and smooths the best over the documents' graph where those folds say "
             "it helps (the notes): \"its answer unsmoothed\" is the same linear model without "
             "the smoothing.", ""]
    summary, own, encoder_summary = [], [], []
    smoothing_summary: list[tuple[str, str, list[dict]]] = []
    for ds in datasets:
        seeds = sorted({s for (d, s, p) in recs if d == ds and p == "baselines"}
                       & {s for (d, s, p) in recs if d == ds and p == "auto"})
        base_only = sorted({s for (d, s, p) in recs if d == ds and p == "baselines"})
        if not base_only:
            continue
        lines += [f"## {ds}", "", "| method | n | test acc | macro F1 | val acc | wall s | "
                  "CPU s | peak RSS MiB |", "|---|---|---|---|---|---|---|---|"]
        bl = [recs[(ds, s, "baselines")] for s in base_only]
        for key, name in BASELINES.items():
            rows = [r["baselines"][key] for r in bl]
            lines.append(f"| ({key}) {name} | {len(rows)} | "
                         f"{_pm([x['test']['accuracy'] for x in rows])} | "
                         f"{_pm([x['test']['macro_f1'] for x in rows])} | "
                         f"{_pm([x['val_accuracy'] for x in rows])} | "
                         f"{_pm([x['wall_seconds'] for x in rows], 1, 1)} | "
                         f"{_pm([x['cpu_seconds'] for x in rows], 1, 1)} | |")
        best = [max(BASELINES, key=lambda k: (r["baselines"][k]["val_accuracy"], -ord(k)))
                for r in bl]
        lines.append(f"| best baseline (on validation: {', '.join(best)}) | {len(bl)} | "
                     f"{_pm([r['baselines'][k]['test']['accuracy'] for r, k in zip(bl, best)])} | "
                     f"{_pm([r['baselines'][k]['test']['macro_f1'] for r, k in zip(bl, best)])} | "
                     f"| | | {_pm([r['peak_rss_mib'] for r in bl], 1, 0)} (all four) |")
        enc_seeds = [s for s in base_only if (ds, s, "encoders") in recs]
        six: dict[int, tuple[str, dict]] = {}  # seed -> (key, its baseline record)
        if enc_seeds:
            en = [recs[(ds, s, "encoders")] for s in enc_seeds]
            for key, name in ENCODER_BASELINES.items():
                rows = [r["baselines"][key] for r in en]
                lines.append(f"| ({key}) {name} | {len(rows)} | "
                             f"{_pm([x['test']['accuracy'] for x in rows])} | "
                             f"{_pm([x['test']['macro_f1'] for x in rows])} | "
                             f"{_pm([x['val_accuracy'] for x in rows])} | "
                             f"{_pm([x['wall_seconds'] for x in rows], 1, 1)} | "
                             f"{_pm([x['cpu_seconds'] for x in rows], 1, 1)} | |")
            six = best_of_six(recs, ds)
            picked = [six[s] for s in enc_seeds]
            lines.append(f"| best of six (on validation: {', '.join(k for k, _ in picked)}) | "
                         f"{len(picked)} | {_pm([b['test']['accuracy'] for _, b in picked])} | "
                         f"{_pm([b['test']['macro_f1'] for _, b in picked])} | | | | |")
        au = [recs[(ds, s, "auto")] for s in seeds]
        for key, name in (("auto", "`--auto`"), ("unsmoothed", "its answer unsmoothed"),
                          ("graph_part", "graph part"),
                          ("combined", "combined"), ("builtin", "built-in baseline")):
            if not au:  # its searches have not run yet
                break
            if any(key not in r for r in au):  # records from before smoothing
                continue
            timing = (f"{_pm([r['wall_seconds'] for r in au], 1, 1)} | "
                      f"{_pm([r['cpu_seconds'] for r in au], 1, 1)} | "
                      f"{_pm([r['peak_rss_mib'] for r in au], 1, 0)}") if key == "auto" \
                else "(in `--auto`) | | "
            lines.append(f"| {name} | {len(au)} | "
                         f"{_pm([r[key]['test']['accuracy'] for r in au])} | "
                         f"{_pm([r[key]['test']['macro_f1'] for r in au])} | | {timing} |")
        ae = [recs[(ds, s, "auto-encoder")] for s in base_only if (ds, s, "auto-encoder") in recs]
        for key, name in (("auto", "`--auto --encoder`"),
                          ("unsmoothed", "its answer unsmoothed"),
                          ("graph_part", "its graph part"),
                          ("encoder_head", "its encoder head"),
                          ("builtin_encoder", "its built-in baseline with the encoder")):
            if not ae:
                break
            if any(key not in r for r in ae):  # records from before smoothing
                continue
            timing = (f"{_pm([r['wall_seconds'] for r in ae], 1, 1)} | "
                      f"{_pm([r['cpu_seconds'] for r in ae], 1, 1)} | "
                      f"{_pm([r['peak_rss_mib'] for r in ae], 1, 0)}") if key == "auto" \
                else "(in `--auto --encoder`) | | "
            lines.append(f"| {name} | {len(ae)} | "
                         f"{_pm([r[key]['test']['accuracy'] for r in ae])} | "
                         f"{_pm([r[key]['test']['macro_f1'] for r in ae])} | | {timing} |")
        if ae:
            lines += ["", "What `--auto --encoder` chose per seed: " + "; ".join(
                f"seed {r['seed']}: {_choice(r)}" for r in ae) + ".", "",
                *_smoothing_lines(ae, "`--auto --encoder`"),
                "McNemar (exact, two-sided) of `--auto --encoder` and of its graph part "
                "against the best of six of the same seed:", "",
                "| seed | best of six | `--auto --encoder` n01 / n10, p | "
                "graph part n01 / n10, p |",
                "|---|---|---|---|"]
            for r in ae:
                if r["seed"] not in six:
                    continue
                k, b6 = six[r["seed"]]
                y = np.asarray(r["test_labels"])
                cells = [_mcnemar_cell(y, r[key]["predictions"], b6["predictions"])
                         for key in ("auto", "graph_part")]
                lines.append(f"| {r['seed']} | ({k}) | {cells[0]} | {cells[1]} |")
            done = [r for r in ae if r["seed"] in six]
            if done:
                encoder_summary.append((ds, len(done),
                                        100 * np.mean([r["auto"]["test"]["accuracy"]
                                                       for r in done]),
                                        100 * np.mean([six[r["seed"]][1]["test"]["accuracy"]
                                                       for r in done])))
        for part, rows in (("`--auto`", au), ("`--auto --encoder`", ae)):
            if rows and all("unsmoothed" in r for r in rows):
                smoothing_summary.append((ds, part, rows))
        if au:
            own.append((ds, len(au), 100 * np.mean([r["auto"]["test"]["accuracy"] for r in au]),
                        100 * np.mean([r["builtin"]["test"]["accuracy"] for r in au])))
            lines += ["", "What `--auto` chose per seed: " + "; ".join(
                f"seed {r['seed']}: " + (f"the linear baseline ({r['choice'].get('linear')})"
                                         if r["choice"]["predictor"] == "linear" else
                                         f"{r['choice']['model']}"
                                         f"{_plus_linear(r)}"
                                         f" (stop {r['choice']['stop_words'] or 'none'}, "
                                         f"min_freq {r['choice']['min_freq']}, window "
                                         f"{r['choice']['window']})")
                + f", {_stopped(r)} of {r['trained']} trained candidates stopped early"
                for r in au) + ".", "", *_smoothing_lines(au, "`--auto`"),
                "McNemar (exact, two-sided) against the best baseline of the same seed; "
                "n01: documents only the first gets right, n10: only the best baseline:", "",
                "| seed | best baseline | `--auto` n01 / n10, p | graph part n01 / n10, p |",
                "|---|---|---|---|"]
            for r, k, s in zip(bl, best, base_only):
                if s not in seeds:
                    continue
                a = recs[(ds, s, "auto")]
                y = np.asarray(a["test_labels"])
                if len(y) != len(r["test_labels"]) or not np.array_equal(y, r["test_labels"]):
                    lines.append(f"| {s} | ({k}) | test documents differ | |")
                    continue
                pb = np.asarray(r["baselines"][k]["predictions"])
                cells = []
                for key in ("auto", "graph_part"):
                    n01, n10, p = mcnemar(y, np.asarray(a[key]["predictions"]), pb)
                    cells.append(f"{n01} / {n10}, p = {p:.3g}")
                lines.append(f"| {s} | ({k}) | {cells[0]} | {cells[1]} |")
            bacc = [r["baselines"][k]["test"]["accuracy"] for r, k, s in zip(bl, best, base_only)
                    if s in seeds]
            aacc = [r["auto"]["test"]["accuracy"] for r in au]
            summary.append((ds, len(au), 100 * np.mean(aacc), 100 * np.mean(bacc)))
        lines.append("")
    if summary:
        lines += ["## Summary: `--auto` minus the best baseline (mean test accuracy, points)", "",
                  "| data set | n | `--auto` | best baseline | difference |",
                  "|---|---|---|---|---|"]
        for ds, n, a, b in summary:
            lines.append(f"| {ds} | {n} | {a:.2f} | {b:.2f} | {a - b:+.2f} |")
        diffs = [a - b for _, _, a, b in summary]
        lines += ["", f"Mean difference over these {len(summary)} corpora: "
                  f"{np.mean(diffs):+.2f} points.", ""]
    for title, rows, names, target in (
            ("`--auto` minus its own built-in baseline", own, ("`--auto`", "built-in"),
             "target: no corpus below −0.3"),
            ("`--auto --encoder` minus the best of six baselines", encoder_summary,
             ("`--auto --encoder`", "best of six"),
             "target: ≥ +0.5 on average and no corpus below −0.3")):
        if not rows:
            continue
        lines += [f"## Summary: {title} (mean test accuracy, points)", "",
                  f"| data set | n | {names[0]} | {names[1]} | difference |",
                  "|---|---|---|---|---|"]
        for ds, n, a, b in rows:
            lines.append(f"| {ds} | {n} | {a:.2f} | {b:.2f} | {a - b:+.2f} |")
        diffs = [a - b for _, _, a, b in rows]
        lines += ["", f"Mean difference over these {len(rows)} corpora: {np.mean(diffs):+.2f} "
                  f"points, lowest {min(diffs):+.2f} ({target}).", ""]
    lines += _smoothing_table(smoothing_summary)
    lines += _beside_bertgcn(recs, datasets)
    missing = [d for d in datasets if not any(k[0] == d for k in recs)]
    if missing:
        lines += [f"Not run: {', '.join(missing)}.", ""]
    if notes:
        lines += [notes.rstrip(), ""]
    log = out / "commands.txt"
    commands = log.read_text(encoding="utf-8").splitlines() if log.is_file() else [command]
    lines += ["Commands that wrote the records:", ""] + [f"- `{c}`" for c in commands] + \
        ["", f"Machine when the report was written: {machine}", ""]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--datasets", nargs="+", default=[*EXTRA, "r8"])
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--parts", nargs="+", default=["baselines", "auto"],
                        choices=["baselines", "auto", "encoders", "auto-encoder"])
    parser.add_argument("--encoder", default=None, metavar="MODEL",
                        help="the sentence encoder of the encoders and auto-encoder parts")
    parser.add_argument("--out", type=Path, default=ROOT / "docs/results/raw/vs-linear")
    parser.add_argument("--report", type=Path, default=ROOT / "docs/results/vs-linear.md")
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--report-only", action="store_true")
    parser.add_argument("--one", nargs=3, metavar=("DATASET", "SEED", "PART"),
                        help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    if args.one:
        one(args.one[0], int(args.one[1]), args.one[2], args.out, args.threads, args.encoder)
        return 0
    from _report import command_line, machine_line
    from gfbgcn.core.io import atomic_write_text

    command = command_line()
    notes_path = args.report.with_name(args.report.stem + "_notes.md")
    notes = notes_path.read_text(encoding="utf-8") if notes_path.is_file() else ""
    if not args.report_only:
        with open(args.out / "commands.txt", "a", encoding="utf-8") as log:
            log.write(command + "\n")
        for ds in args.datasets:
            for seed in range(args.seeds):
                for part in args.parts:
                    if _record_path(args.out, ds, seed, part).is_file():
                        continue
                    print(f"{ds} seed {seed} {part} ...", flush=True)
                    start = time.perf_counter()
                    encoder = ["--encoder", args.encoder] if args.encoder else []
                    done = subprocess.run([sys.executable, __file__, "--one", ds, str(seed),
                                           part, "--out", str(args.out), "--threads",
                                           str(args.threads), *encoder], env=os.environ)
                    print(f"  exit {done.returncode}, {time.perf_counter() - start:.0f} s",
                          flush=True)
                    atomic_write_text(args.report, render(args.out, args.datasets, command,
                                                          machine_line(args.threads), notes))
    atomic_write_text(args.report, render(args.out, args.datasets, command,
                                          machine_line(args.threads), notes))
    print(f"wrote {args.report}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
