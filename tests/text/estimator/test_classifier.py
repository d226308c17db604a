"""``TextGCNClassifier``: scikit-learn conventions, fitting (with ``X_unlabeled`` too), save/load,
and the one-line errors of bad input; its predicting side: ``test_predicting.py``."""

from __future__ import annotations

import inspect
import warnings

import numpy as np
import pandas as pd
import pytest
import torch
from sklearn.base import clone
from sklearn.exceptions import NotFittedError
from sklearn.model_selection import GridSearchCV, cross_val_score
from sklearn.pipeline import Pipeline
from sklearn.preprocessing import FunctionTransformer

import gfbgcn
from gfbgcn import TextGCNClassifier
from gfbgcn.core.errors import UserError
from tests.text.estimator.toyfit import FAST, UNSEEN, toy_split
from tests.text.toydata import NEW_DOCS

# ---- scikit-learn conventions ----------------------------------------------------------------


def test_get_params_equals_the_init_arguments():
    given = {"model": "gcn", "hidden": 12, "dropout": 0.25, "lr": 0.01, "weight_decay": 1e-4,
             "epochs": 7, "patience": 3, "val_ratio": 0.2, "random_state": 5,
             "class_weight": {"sport": 2.0},
             "fast_genvec": True, "fixed_lambda": 0.5, "features": "onehot", "window": 5,
             "min_freq": 2, "stop_words": None, "cooccurrence": "pair", "tokenizer": "whitespace",
             "no_numbers": True, "cjk_split": "bigrams", "batch_size": 16, "fanout": 4,
             "optimizer": "sparse-adam", "row_budget": 64,
             "device": "cpu", "multi_label": True, "label_sep": ";", "auto": True, "budget": "3",
             "baseline": False, "baseline_class_weight": "balanced", "encoder": "my-encoder",
             "encoder_finetune": True,
             "cache": False,
             "build_workers": 1, "verbose": True, "tensorboard": "runs"}
    assert set(given) == set(inspect.signature(TextGCNClassifier).parameters)
    assert TextGCNClassifier(**given).get_params() == given


def test_clone_round_trip(transductive_fit):
    clf = transductive_fit[0]
    copy = clone(clf)
    assert copy.get_params() == clf.get_params()
    assert not hasattr(copy, "classes_")
    with pytest.raises(NotFittedError):
        copy.predict(["goal"])


def test_estimator_tags_say_raw_text():
    from sklearn.utils import get_tags

    tags = get_tags(TextGCNClassifier())
    assert tags.input_tags.string and not tags.input_tags.two_d_array
    assert tags.estimator_type == "classifier"


# ---- random_state: check_random_state's meaning, the caller's generators untouched -----------


def test_numpy_integer_random_state_is_the_int_seed(topics):
    x, y = topics
    by_int = TextGCNClassifier(**FAST, random_state=1).fit(x, y)
    by_numpy = TextGCNClassifier(**FAST, random_state=np.int64(1)).fit(x, y)
    np.testing.assert_array_equal(by_numpy.predict_proba(UNSEEN), by_int.predict_proba(UNSEEN))
    other = TextGCNClassifier(**FAST, random_state=2).fit(x, y)
    assert not np.array_equal(other.predict_proba(UNSEEN), by_int.predict_proba(UNSEEN))


def test_a_grid_search_over_numpy_seeds(topics):
    search = GridSearchCV(TextGCNClassifier(**FAST), {"random_state": np.arange(2)}, cv=2,
                          error_score="raise").fit(*topics)
    assert search.best_params_["random_state"] in (0, 1)


@pytest.mark.parametrize("make", [lambda: None, lambda: np.random.RandomState(0),
                                  lambda: np.random.default_rng(0)])
def test_random_state_none_randomstate_and_generator_fit(make, topics):
    clf = TextGCNClassifier(**FAST, random_state=make()).fit(*topics)
    assert list(clf.predict(UNSEEN)) == ["sport", "money", "science"]


def test_a_randomstate_gives_the_fit_of_its_draw(topics):
    from gfbgcn.text.estimator.settings import run_seed

    x, y = topics
    drawn = TextGCNClassifier(**FAST, random_state=np.random.RandomState(4)).fit(x, y)
    seeded = TextGCNClassifier(**FAST, random_state=run_seed(np.random.RandomState(4))).fit(x, y)
    np.testing.assert_array_equal(drawn.predict_proba(UNSEEN), seeded.predict_proba(UNSEEN))


@pytest.mark.parametrize("extra", [{}, {"batch_size": 4, "fanout": 2}])
def test_fit_leaves_the_callers_global_generators_alone(extra, topics):
    import random

    import torch

    random.seed(11)
    np.random.seed(11)
    torch.manual_seed(11)
    before = (random.getstate(), np.random.get_state(), torch.get_rng_state())
    clf = TextGCNClassifier(**FAST, **extra, random_state=3).fit(*topics)
    clf.predict_proba(UNSEEN)
    assert random.getstate() == before[0]
    state = np.random.get_state()
    assert state[0] == before[1][0] and np.array_equal(state[1], before[1][1])
    assert state[2:] == before[1][2:]
    assert torch.equal(torch.get_rng_state(), before[2])


# ---- fit, predict, predict_proba -------------------------------------------------------------


def test_fit_predict_shapes_and_classes(transductive_fit):
    clf, x, y, unlabeled = transductive_fit
    assert list(clf.classes_) == ["a", "b", "c"]
    docs = x[:5] + unlabeled + NEW_DOCS
    proba = clf.predict_proba(docs)
    assert proba.shape == (len(docs), 3)
    np.testing.assert_allclose(proba.sum(1), 1.0, rtol=1e-5)
    pred = clf.predict(docs)
    assert pred.shape == (len(docs),) and set(pred) <= {"a", "b", "c"}
    assert list(pred) == list(clf.classes_[proba.argmax(1)])
    assert clf.graph_.num_docs == len(x) + len(unlabeled)
    assert 0.0 <= clf.score(x, y) <= 1.0
    assert clf.predict([]).shape == (0,)



def test_labels_keep_their_type_and_sorted_order():
    x, y, _ = toy_split()
    as_int = {"a": 2, "b": 10, "c": 7}
    by_int = TextGCNClassifier(**FAST).fit(x, [as_int[v] for v in y])
    by_str = TextGCNClassifier(**FAST).fit(x, [str(as_int[v]) for v in y])
    assert by_int.classes_.tolist() == [2, 7, 10]  # numeric order, not "10" < "2" < "7"
    assert by_str.classes_.tolist() == ["10", "2", "7"]
    docs = x + NEW_DOCS  # documents with known words (no prior: no ties)
    # the same training (same label strings), columns reordered to each classes_
    np.testing.assert_allclose(by_int.predict_proba(docs),
                               by_str.predict_proba(docs)[:, [1, 2, 0]], rtol=1e-6)
    assert [str(v) for v in by_int.predict(docs)] == list(by_str.predict(docs))
    assert isinstance(by_int.predict(docs)[0], np.integer)


@pytest.mark.parametrize("form", [list, np.array, pd.Series])
def test_list_ndarray_and_series_inputs(form, topics):
    x, y = topics
    base = TextGCNClassifier(**FAST).fit(x, y)
    clf = TextGCNClassifier(**FAST).fit(form(x), form(y))
    np.testing.assert_array_equal(clf.predict(form(UNSEEN)), base.predict(UNSEEN))
    np.testing.assert_allclose(clf.predict_proba(form(x)), base.predict_proba(x))
    assert list(base.predict(UNSEEN)) == ["sport", "money", "science"]


# ---- transductive: the graph built with X_unlabeled ------------------------------------------



@pytest.mark.parametrize("random_state", [7, np.random.RandomState(3)])
def test_to_pyg_holds_the_validation_split_training_used(random_state):
    """``graph_.to_pyg()`` draws the validation split with the run's seed (the one
    ``random_state`` gave), not seed 0: the validation accuracy of the fitted outputs on its
    ``val_mask`` is ``result_.val``'s."""
    x, y, _ = toy_split()
    clf = TextGCNClassifier(**FAST, random_state=random_state).fit(x, y)
    seed = clf.result_.config.seed
    assert seed != 0 and (clf.graph_.seed, clf.graph_.val_ratio) == (seed, clf.val_ratio)
    data = clf.graph_.to_pyg()
    expected = clf.graph_.to_data(clf.val_ratio, seed)
    assert torch.equal(data.val_mask, expected.val_mask)
    assert torch.equal(data.train_mask, expected.train_mask)
    assert not torch.equal(data.val_mask, clf.graph_.to_pyg(seed=0).val_mask)
    val = data.val_mask[: clf.graph_.num_docs].numpy()
    pred = clf.result_.probabilities[val].argmax(1)
    accuracy = float((pred == clf.graph_.labels[val]).mean())
    assert accuracy == pytest.approx(clf.result_.val["accuracy"])


def test_to_pyg_leaves_the_unlabeled_documents_out(transductive_fit):
    clf, x, y, unlabeled = transductive_fit
    data = clf.graph_.to_pyg()
    d, n = clf.graph_.num_docs, len(x)
    assert bool((data.y[n:d] == -1).all())  # X_unlabeled: no class, not the first one
    assert [clf.graph_.label_names[i] for i in data.y[:n]] == list(y)
    assert not (data.train_mask | data.val_mask | data.test_mask)[n:].any()
    assert int((data.train_mask | data.val_mask)[:n].sum()) == n





# ---- scikit-learn's tools ----------------------------------------------------------------------


def test_pipeline_grid_search_and_cross_validation(topics):
    x, y = topics
    pipe = Pipeline([("lower", FunctionTransformer(lambda docs: [d.lower() for d in docs])),
                     ("clf", TextGCNClassifier(**FAST))])
    search = GridSearchCV(pipe, {"clf__hidden": [4, 8]}, cv=3).fit(x, y)
    assert search.best_params_["clf__hidden"] in (4, 8)
    assert search.best_score_ > 0.8  # three topics with their own words; chance is 1/3
    assert list(search.predict([d.upper() for d in UNSEEN])) == ["sport", "money", "science"]
    scores = cross_val_score(TextGCNClassifier(**FAST), x, y, cv=3)
    assert scores.shape == (3,) and scores.mean() > 0.8


def test_x_unlabeled_goes_through_the_pipelines_earlier_steps(topics):
    """With metadata routing, Pipeline(transform_input=["X_unlabeled"]) transforms X_unlabeled
    as it transforms X, so predict finds those documents in the graph (transductive)."""
    import sklearn

    x, y = topics
    lower = FunctionTransformer(lambda docs: [d.lower() for d in docs])
    with sklearn.config_context(enable_metadata_routing=True):
        clf = TextGCNClassifier(**FAST).set_fit_request(X_unlabeled=True)
        pipe = Pipeline([("lower", lower), ("clf", clf)], transform_input=["X_unlabeled"])
        shouting = [d.upper() for d in x[20:]]
        pipe.fit(x[:20], y[:20], X_unlabeled=shouting)
        fitted = pipe.named_steps["clf"]
        nodes = fitted.result_.probabilities[20:]  # the graph's outputs of X_unlabeled
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # no AllInductiveWarning: every one is found
            np.testing.assert_allclose(pipe.predict_proba(shouting), nodes, rtol=1e-6)


def test_x_unlabeled_that_skipped_the_pipeline_is_warned_about(topics):
    """Without routing, X_unlabeled reaches the classifier untransformed: predict would be
    silently inductive; it warns instead, naming the fix."""
    from gfbgcn.text.estimator.transductive import AllInductiveWarning

    x, y = topics
    pipe = Pipeline([("lower", FunctionTransformer(lambda docs: [d.lower() for d in docs])),
                     ("clf", TextGCNClassifier(**FAST))])
    shouting = [d.upper() for d in x[20:]]
    pipe.fit(x[:20], y[:20], clf__X_unlabeled=shouting)
    with pytest.warns(AllInductiveWarning, match=r"none of the 10 document\(s\) to classify "
                                                 r"was given to fit.*transform_input"):
        pipe.predict(shouting)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        pipe.predict(x[:3])  # fitted documents found: no warning
        TextGCNClassifier(**FAST).fit(x[:20], y[:20]).predict(UNSEEN)  # no X_unlabeled: none


def test_auto_search_through_the_estimator(topics, tmp_path):
    x, y = topics
    clf = TextGCNClassifier(**{**FAST, "auto": True, "budget": 2}).fit(x, y)
    # the linear baseline, then 2 trainings with 2 rows each
    assert clf.auto_ is not None and len(clf.auto_.candidates) == 5
    assert clf.result_ is clf.auto_.result and clf.graph_ is clf.auto_.graph
    assert list(clf.predict(UNSEEN)) == ["sport", "money", "science"]
    loaded = TextGCNClassifier.load(clf.save(tmp_path / "auto-model"))
    np.testing.assert_allclose(loaded.predict_proba(UNSEEN), clf.predict_proba(UNSEEN))
    assert loaded.get_params()["auto"] is True


def test_auto_search_trains_on_the_given_device(topics, monkeypatch):
    from gfbgcn.text.search import auto as search

    devices = []

    def recording(*args, device=None, **kwargs):
        devices.append(device)
        return train_text(*args, device=device, **kwargs)

    train_text = search.train_text
    monkeypatch.setattr(search, "train_text", recording)
    TextGCNClassifier(**{**FAST, "auto": True, "budget": 1, "device": "cpu"}).fit(*topics)
    assert [str(d) for d in devices] == ["cpu"]  # resolved once, passed down


# ---- saving and loading ----------------------------------------------------------------------


def test_save_load_round_trip(transductive_fit, tmp_path):
    clf, x, _, unlabeled = transductive_fit
    path = clf.save(tmp_path / "model")
    assert (path / "transductive.safetensors").is_file()
    loaded = TextGCNClassifier.load(path)
    assert loaded.get_params() == clf.get_params()
    assert loaded.classes_.tolist() == clf.classes_.tolist()
    docs = x + unlabeled + NEW_DOCS
    np.testing.assert_allclose(loaded.predict_proba(docs), clf.predict_proba(docs), rtol=1e-6)
    assert list(loaded.predict(docs)) == list(clf.predict(docs))
    assert loaded.graph_ is None and loaded.result_ is None
    # gfbgcn.load gives the inductive predictor of the same model
    plain = gfbgcn.load(path)
    # to float32 rounding: the estimator renormalises the model's float32 softmax rows in
    # float64 (FittedPrediction.predict_proba), the plain predictor returns them as they are
    np.testing.assert_allclose(plain.predict_proba(NEW_DOCS), clf.predict_proba(NEW_DOCS),
                               rtol=1e-6)
    with pytest.raises(UserError, match="loaded from a model directory"):
        loaded.save(tmp_path / "again")


def test_save_without_transductive_outputs(transductive_fit, tmp_path):
    clf, _, _, unlabeled = transductive_fit
    loaded = TextGCNClassifier.load(clf.save(tmp_path / "model", transductive=False))
    assert not (tmp_path / "model" / "transductive.safetensors").exists()
    np.testing.assert_allclose(loaded.predict_proba(unlabeled),
                               clf.predictor_.predict_proba(unlabeled), rtol=1e-6)


def test_a_fitted_classifier_pickles(transductive_fit):
    """What joblib and scikit-learn's parallel tools do with an estimator."""
    import pickle

    clf, x, _, unlabeled = transductive_fit
    docs = x[:3] + unlabeled + NEW_DOCS
    clf.predict(docs)  # with its predictor and transductive lookup built
    back = pickle.loads(pickle.dumps(clf))
    np.testing.assert_allclose(back.predict_proba(docs), clf.predict_proba(docs))


def test_predict_leaves_the_classifier_unchanged(topics):
    """scikit-learn's check_dict_unchanged, and deeper: the whole pickled state."""
    import pickle

    x, y = topics
    clf = TextGCNClassifier(**FAST).fit(x[:20], y[:20], X_unlabeled=x[20:])
    before, pickled = clf.__dict__.copy(), pickle.dumps(clf)
    for method in (clf.predict, clf.predict_proba, lambda docs: clf.score(docs, y)):
        method(x)  # transductive (fitted documents) and inductive (UNSEEN below) lookups
        assert clf.__dict__ == before
    clf.predict(UNSEEN)
    assert pickle.dumps(clf) == pickled


def test_predict_leaves_a_loaded_classifier_unchanged(transductive_fit, tmp_path):
    import pickle

    loaded = TextGCNClassifier.load(transductive_fit[0].save(tmp_path / "model"))
    before, pickled = loaded.__dict__.copy(), pickle.dumps(loaded)
    loaded.predict(transductive_fit[1] + UNSEEN)
    assert loaded.__dict__ == before and pickle.dumps(loaded) == pickled


def test_a_pickle_holds_what_predict_and_save_need(transductive_fit, tmp_path):
    import pickle

    clf, x, _, unlabeled = transductive_fit
    pickled = pickle.dumps(clf)
    saved = sum(f.stat().st_size for f in clf.save(tmp_path / "model").iterdir())
    # the weights and outputs the model directory holds, plus a fixed ~25 KB of pickled torch
    # and PyG module structure (which dominates on this toy corpus; on R8 the pickle is
    # about the saved directory's size)
    assert len(pickled) < 1.5 * saved + 32_000
    assert x[0].encode() not in pickled  # no training text, only digests
    back = pickle.loads(pickle.dumps(clf))
    assert back.graph_ is None and back.result_ is None and back.corpus_ is None
    docs = x[:3] + unlabeled + NEW_DOCS
    np.testing.assert_allclose(back.predict_proba(docs), clf.predict_proba(docs))
    again = TextGCNClassifier.load(back.save(tmp_path / "from-pickle"))
    np.testing.assert_allclose(again.predict_proba(docs), clf.predict_proba(docs), rtol=1e-6)
    assert clf.graph_ is not None  # pickling did not strip the original


def test_repr_of_a_loaded_model_is_short(transductive_fit, tmp_path):
    path = transductive_fit[0].save(tmp_path / "model")
    for loaded in (gfbgcn.load(path), TextGCNClassifier.load(path)):
        assert len(repr(loaded)) < 400 and "\n" not in repr(loaded).strip()
    assert repr(gfbgcn.load(path)).startswith("InductiveTextGCN(model='gfb-max', words=")


def _split_on_spaces(text: str) -> list[str]:
    """A custom tokenizer: saved models record its name, not the callable."""
    return text.lower().split()


def test_a_custom_tokenizer_is_given_again_to_load(topics, tmp_path):
    from gfbgcn.core.errors import ModelLoadError

    x, y = topics
    clf = TextGCNClassifier(**{**FAST, "tokenizer": _split_on_spaces}).fit(x, y)
    path = clf.save(tmp_path / "model")
    with pytest.raises(ModelLoadError, match="custom tokenizer .*_split_on_spaces.*pass the "
                                             "same callable as tokenizer=") as info:
        gfbgcn.load(path)
    assert "\n" not in str(info.value)
    with pytest.raises(ModelLoadError, match="custom tokenizer"):
        TextGCNClassifier.load(path)
    for loaded in (gfbgcn.load(path, tokenizer=_split_on_spaces),
                   TextGCNClassifier.load(path, tokenizer=_split_on_spaces)):
        np.testing.assert_allclose(loaded.predict_proba(UNSEEN), clf.predict_proba(UNSEEN),
                                   rtol=1e-6)


def test_integer_classes_survive_save_and_load(tmp_path, topics):
    x, y = topics
    codes = {"sport": 3, "money": 1, "science": 2}
    clf = TextGCNClassifier(**FAST).fit(x, [codes[v] for v in y])
    loaded = TextGCNClassifier.load(clf.save(tmp_path / "model"))
    assert loaded.classes_.tolist() == [1, 2, 3]
    assert loaded.predict(UNSEEN).tolist() == [3, 1, 2]


# ---- bad input: one line, before any work ----------------------------------------------------

X3, Y3 = ["goal match", "bank rates", "gene cell"], ["sport", "money", "science"]


@pytest.mark.parametrize(("params", "args", "message"), [
    ({}, (X3, Y3[:2]), "X and y have different lengths: 3 documents, 2 labels"),
    ({}, (["goal", None, "gene"], Y3), r"X\[1\] is NoneType \(None\), not str: every document "
                                       "must be a string"),
    ({}, (["goal", float("nan"), "gene"], Y3), r"X\[1\] is float \(nan\), not str"),
    ({}, ("goal match", Y3), "X must be a list of documents, not one str"),
    ({}, (np.array([X3]).T, Y3), r"X must be one-dimensional, one document per item; got shape "
                                 r"\(3, 1\)"),
    ({}, (X3, ["sport"] * 3), r"only one class \('sport'\) in the corpus: there is nothing to "
                              "classify"),
    ({}, (X3, ["sport", None, "money"]), r"y\[1\] is missing \(None\)"),
    ({}, (X3, [0.5, 1.5, 2.5]), "y holds continuous values"),
    ({}, (X3, ["sport", 1, "money"]), r"y mixes label types \(number, str\)"),
    ({}, (X3, [[0, 1]] * 3), "y must hold one label per document"),
    ({}, ([], []), "X holds no document"),
    ({"model": "gfb-maxx"}, (X3, Y3), "unknown model 'gfb-maxx'; choose one of gcn, gfb-max, "
                                      "gfb-mean"),
    ({"epochs": 0}, (X3, Y3), "^epochs must be >= 1, got 0$"),
    ({"lr": "fast"}, (X3, Y3), r"^lr must be a finite number in \(0, 10\], got 'fast'$"),
    ({"hidden": 2.5}, (X3, Y3), "^hidden must be a whole number >= 1, got 2.5$"),
    ({"val_ratio": 1.0}, (X3, Y3), r"^val_ratio must be in \(0, 1\), got 1.0$"),
    ({"window": 1}, (X3, Y3), r"^window must be in \[2, 10000\], got 1$"),
    ({"model": "gcn", "fast_genvec": True}, (X3, Y3),
     r"^fast_genvec and fixed_lambda apply to gfb-\* models only$"),
    ({"tokenizer": "nope"}, (X3, Y3), "unknown tokenizer 'nope'"),
    ({"tokenizer": "textgcn", "no_numbers": True}, (X3, Y3),
     "^no_numbers and cjk_split apply to the unicode tokenizer only$"),
    ({"device": "gpu"}, (X3, Y3), "unknown device 'gpu'"),
    ({"auto": True, "budget": "soon"}, (X3, Y3), "^budget must be a number of candidates"),
])
def test_bad_input_is_one_line(params, args, message):
    with pytest.raises(UserError, match=message) as info:
        TextGCNClassifier(**params).fit(*args)
    assert "\n" not in str(info.value)


def test_a_bad_unlabeled_document_is_named():
    with pytest.raises(UserError, match=r"X_unlabeled\[0\] is int"):
        TextGCNClassifier().fit(X3, Y3, X_unlabeled=[3])



def test_messages_name_parameters_in_python_and_options_on_the_command_line(tmp_path, capsys):
    """One check, one message: Python names the parameter, the command line its option."""
    from gfbgcn.cli import main

    data = tmp_path / "one.csv"
    data.write_text("text,label\n" + "".join(f"goal match {i},sport\n" for i in range(12)))
    base = ["train", "--dataset", str(data), "--min-freq", "1", "--quiet", "--no-cache"]
    for argv, params, args, python, command_line in [
        (base, {}, (X3, ["sport"] * 3), "only one class", "only one class"),
        ([*base, "--model", "gcn", "--fast-genvec"], {"model": "gcn", "fast_genvec": True},
         (X3, Y3), "fast_genvec and fixed_lambda apply", "--fast-genvec and --fixed-lambda apply"),
        ([*base, "--model", "gcn", "--tokenizer", "textgcn", "--no-numbers"],
         {"model": "gcn", "tokenizer": "textgcn", "no_numbers": True}, (X3, Y3),
         "no_numbers and cjk_split apply", "--no-numbers and --cjk-split apply"),
    ]:
        assert main(argv) == 2
        line = capsys.readouterr().err.strip().splitlines()[-1]  # after any "note:" line
        with pytest.raises(UserError) as info:
            TextGCNClassifier(**params).fit(*args)
        assert str(info.value).startswith(python) and "--" not in str(info.value)
        assert line.startswith(f"error: {command_line}")
        assert line.replace(command_line, python) == f"error: {info.value}"
