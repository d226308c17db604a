"""Every setting of a text classifier in one table: its default, the values it accepts and its
help (scikit-learn's ``_parameter_constraints``, with the defaults and the help beside them).

:data:`PARAMETERS` maps each parameter of :class:`gfbgcn.TextGCNClassifier` to a
:class:`Param`.  Everything else reads it: the estimator's defaults, ``TrainConfig`` and
``GraphConfig`` (their defaults and range checks), and ``gfbgcn train``/``data``/``predict``,
which generate their options (default, type and range check, help) from it
(:func:`gfbgcn.cli.options.add_parameter_arguments`).  A value out of range is an
:class:`~gfbgcn.core.errors.OptionError` naming the Python parameter (``epochs must be >= 1,
got 0``); the command line shows its option instead (:mod:`gfbgcn.cli.parameters`).

This module is the bottom floor of :mod:`gfbgcn.text`: it imports nothing of it, so every floor
may read it.  The names a user may choose (models, optimizers, ...) are defined here too.
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass
from typing import Any

from gfbgcn.core.device import DEFAULT_DEVICE, DEVICE_HELP
from gfbgcn.core.errors import OptionError
from gfbgcn.core.validate import (
    SEED_MAX,
    WINDOW_MAX,
    check_choice,
    check_option,
    range_text,
)

#: Two-layer models (a second layer after a GCN layer): inductive, savable, mini-batch capable.
SECOND_LAYERS: tuple[str, ...] = ("gcn", "gfb-max", "gfb-mean", "gfb-diag", "gfb-topk",
                                  "gfb-upper", "fbp", "cbp", "bp", "sqrt")
#: Models built whole (no separable second layer): full batch, transductive only.
WHOLE_MODELS: tuple[str, ...] = ("sgc", "gin")
MODELS: tuple[str, ...] = SECOND_LAYERS + WHOLE_MODELS
OPTIMIZERS: tuple[str, ...] = ("adam", "sparse-adam")
FEATURE_KINDS: tuple[str, ...] = ("onehot", "wordllama", "ngram", "encoder")
CJK_SPLITS: tuple[str, ...] = ("chars", "bigrams")
COOCCURRENCES: tuple[str, ...] = ("window", "pair")
#: ``class_weight``, ``baseline_class_weight``: scikit-learn's class weighting by name (``None``:
#: every document weighs 1; from Python ``class_weight`` also takes a dict).
CLASS_WEIGHTS: tuple[str, ...] = ("balanced",)
#: ``batch_size="auto"``: full batch where it fits the memory, else a mini-batch setting.
AUTO = "auto"

#: The largest learning rate and weight decay accepted: beyond these an Adam step overflows
#: float32 or the loss diverges at once, so an accepted value never fails inside the optimiser.
LR_MAX = 10.0
WEIGHT_DECAY_MAX = 10.0
#: The largest ``|lambda|`` of ``fixed_lambda`` (learned values stay near 1).
LAMBDA_MAX = 1000.0


@dataclass(frozen=True)
class Param:
    """One parameter: its default, what it accepts, its help.

    ``kind``: ``bool``, ``int``, ``float`` or ``str``; ``low``/``high`` (open ends with
    ``low_open``/``high_open``): the range of a number; ``choices``: the accepted strings;
    ``none``: what ``None`` means where it is accepted; ``cli_default``: the command line's
    default where it differs on purpose (``verbose``: the command line shows progress;
    ``batch_size``: it chooses by the graph's size); a yes/no parameter whose command-line
    default is ``True`` is a ``--no-...`` option (:mod:`gfbgcn.cli.parameters`) and its help
    is read after "do not";
    ``needs``: the parameter that must be set for this one to mean anything (the command line
    refuses it alone); ``words``: strings a number parameter accepts too (``batch_size``:
    ``"auto"``); ``metavar``: the command line's placeholder; ``group``: the key of
    :data:`GROUPS` it belongs to (the command line's option groups, and which verbs take it).
    """

    default: Any
    help: str
    group: str
    kind: type = str
    low: float | None = None
    high: float | None = None
    low_open: bool = False
    high_open: bool = False
    choices: tuple[str, ...] | None = None
    none: str | None = None
    cli_default: Any = None
    needs: str | None = None
    words: tuple[str, ...] = ()
    metavar: str | None = None

    def ranged(self) -> bool:
        return self.kind in (int, float) and (self.low is not None or self.high is not None)

    def range_text(self) -> str:
        """``>= 1``, ``in (0, 1)``, ``one of adam, sparse-adam``; ``""`` when anything goes."""
        if self.choices is not None:
            return f"one of {', '.join(self.choices)}"
        if self.ranged():
            return range_text(self.low, self.high, self.low_open, self.high_open)
        return ""

    def check(self, name: str, value: Any, words: bool = True) -> None:
        """Refuse ``value`` (an :class:`~gfbgcn.core.errors.OptionError` naming ``name``);
        ``words=False``: a number only, not one of :attr:`words`."""
        if (value is None and self.none is not None) or (
                words and isinstance(value, str) and value in self.words):
            return
        if self.kind is bool:
            check_flag(name, value)
        elif self.choices is not None:
            check_choice(name, value, self.choices)
        elif self.kind in (int, float):
            check_option(name, value, self.low, self.high, low_open=self.low_open,
                         high_open=self.high_open, whole=self.kind is int)


def check_flag(name: str, value: object) -> None:
    """A yes/no setting must be a bool (or 0/1)."""
    if not isinstance(value, (bool, numbers.Integral)) or value not in (0, 1):
        raise OptionError("{0} must be True or False, got {value!r}", name, value=value)


def _int(default: int | str | None, help: str, low: int | None = None, high: int | None = None,
         *, group: str, **kw: Any) -> Param:
    return Param(default, help, group, int, low, high, **kw)


def _float(default: float | None, help: str, low: float, high: float, *, group: str,
           **kw: Any) -> Param:
    return Param(default, help, group, float, low, high, **kw)


def _flag(default: bool, help: str, *, group: str, **kw: Any) -> Param:
    return Param(default, help, group, bool, **kw)


#: The groups of :data:`PARAMETERS`, by key: their titles (the command line's option groups).
GROUPS: dict[str, str] = {
    "training": "the model and its training",
    "graph": "the graph and its tokenization",
    "mini-batch": "mini-batch training",
    "search": "the linear baseline and --auto's search",
    "encoder": "a pretrained sentence encoder, frozen",
    "run": "where and how it runs",
}


#: The parameters of :class:`gfbgcn.TextGCNClassifier`, in its signature's order.
PARAMETERS: dict[str, Param] = {
    # -- the model and its training
    "model": Param("gfb-max", "model", choices=MODELS, group="training"),
    "hidden": _int(200, "hidden size", 1, group="training"),
    "dropout": _float(0.5, "dropout rate", 0, 1, high_open=True, group="training"),
    "lr": _float(0.02, "Adam learning rate", 0, LR_MAX, low_open=True, group="training"),
    "weight_decay": _float(0.0, "weight decay", 0, WEIGHT_DECAY_MAX, group="training"),
    "epochs": _int(200, "maximum epochs", 1, group="training"),
    "patience": _int(10, "early-stopping patience", 1, group="training"),
    "val_ratio": _float(0.1, "share of training documents used for validation (stratified "
                        "by class for a corpus of your own with one label per document; at "
                        "random for the paper's benchmarks and multi-label)", 0, 1,
                        low_open=True, high_open=True, group="training"),
    "random_state": _int(0, "seed of weights, dropout and the validation split", 0, SEED_MAX,
                         metavar="SEED", group="training"),
    "class_weight": Param(None, "weigh each training document's loss by its class: balanced "
                          "weighs a class inversely to its share of the training documents "
                          "(multi-label: each label's positive documents against its negative "
                          "ones); from Python also a dict {class: weight} (single-label; a "
                          "class not in it weighs 1). It weighs the graph model's loss and its "
                          "validation loss (early stopping), and the fits of the linear baseline "
                          "and of auto's linear models unless baseline_class_weight is given",
                          choices=CLASS_WEIGHTS, none="unweighted", group="training"),
    "fast_genvec": _flag(False, "GFB: the paper's fast GenVec form instead of the exact one",
                         group="training"),
    "fixed_lambda": _float(None, "GFB: freeze lambda at VALUE (0 gives plain GCN)",
                           -LAMBDA_MAX, LAMBDA_MAX, none="learned", metavar="VALUE",
                           group="training"),
    "features": Param("onehot", "node input: onehot identity (the paper), or wordllama: "
                      "identity plus 256-d pretrained word vectors, documents the TF-IDF-"
                      "weighted mean of their words' (needs pip install 'gfbgcn[embeddings]'), "
                      "or ngram: identity plus each document's word 1-2-gram and char 2-5-gram "
                      "TF-IDF, the linear baseline's features (words: identity only), or "
                      "encoder: identity plus each document's embedding by the encoder "
                      "(words: identity only)",
                      choices=FEATURE_KINDS, group="training"),
    # -- the graph and its tokenization
    "window": _int(20, "PMI sliding window", 2, WINDOW_MAX, group="graph"),
    "min_freq": _int(AUTO, "drop words seen fewer times; auto: 2 for a corpus of up to "
                     "20,000 documents, 5 (the paper's) for a larger one and the four "
                     "benchmarks", 1, words=(AUTO,), metavar="N|auto", group="graph"),
    "stop_words": Param(AUTO, "stop words removed from the graph: english (shipped with "
                        "gfbgcn: NLTK's list, no download), another NLTK language, a file "
                        "with one word a line, or none; auto: none for a corpus of up to "
                        "20,000 documents, english (the paper's) for a larger one and the "
                        "four benchmarks", none="none", metavar="LANG|FILE|none|auto",
                        group="graph"),
    "cooccurrence": Param("window", "W(i,j) as windows containing both words (paper) or "
                          "position pairs (reference code)", choices=COOCCURRENCES, group="graph"),
    "tokenizer": Param(None, "textgcn (the paper's ASCII cleaning; the default for the four "
                       "benchmarks), unicode (words of any script, casefolded; the default for "
                       "any other corpus) or whitespace; from Python also a callable "
                       "str -> list[str]", none="by the corpus",
                       metavar="NAME", group="graph"),
    "no_numbers": _flag(False, "unicode tokenizer: drop tokens made of digits only", group="graph"),
    "cjk_split": Param("chars", "unicode tokenizer: split Chinese/Japanese/Thai runs into "
                       "single characters or character bigrams", choices=CJK_SPLITS, group="graph"),
    # -- mini-batch training
    "batch_size": _int(0, "mini-batch training: N training documents per step on sampled "
                       "subgraphs (single-label two-layer models; 0: full batch); auto: full "
                       "batch where the graph's full-batch training fits in the memory "
                       "available, else 1024 documents a step, fanout 8, row budget 16384 and "
                       "sparse Adam; under torchrun with an explicit N, one shard of each "
                       "batch per process", 0, cli_default=AUTO, words=(AUTO,),
                       metavar="N|auto", group="mini-batch"),
    "fanout": _int(32, "mini-batch: sampled layer-1 neighbours per node", 1,
                   needs="batch_size", metavar="K", group="mini-batch"),
    "optimizer": Param("adam", "adam (the paper's), or sparse-adam: mini-batch only, W1 read "
                       "and updated at the rows a batch uses (lazy Adam; less memory per node, "
                       "no weight decay)", choices=OPTIMIZERS, group="mini-batch"),
    "row_budget": _int(0, "mini-batch: at most K rows of the first layer's input (rows of W1) "
                       "per step, drawn by layer-wise importance sampling (0: every sampled "
                       "row)", 0, needs="batch_size", metavar="K", group="mini-batch"),
    # -- where and how
    "device": Param(DEFAULT_DEVICE, DEVICE_HELP, metavar="DEVICE", group="run"),
    "multi_label": _flag(False, "labels are sets joined by label_sep: sigmoid outputs, BCE "
                         "loss, micro/macro F1, threshold chosen on the validation split",
                         group="training"),
    "label_sep": Param("|", "multi-label: the separator of a document's labels",
                       needs="multi_label", metavar="SEP", group="training"),
    "auto": _flag(False, "choose graph settings and model on the validation split, against "
                  "the linear baseline (the answer when no graph model beats it on "
                  "validation); also tries each model combined with the baseline, and the best "
                  "one with ngram features and with wordllama features when installed; the "
                  "model, its features, the rare-word cut and the stop words are then "
                  "searched, and the window is 20", group="search"),
    "budget": Param(None, "auto: at most N candidates trained (each also tried combined with "
                    "the baseline, at no training cost), or N minutes", none="all",
                    needs="auto", metavar="N|Nm", group="search"),
    "baseline": _flag(True, "fit the linear baseline (word + char n-gram TF-IDF, classifier "
                      "chosen on validation) beside the graph model on a corpus with a test "
                      "split (auto: also try it and the models combined with it)", group="search"),
    "baseline_class_weight": Param(None, "linear baseline: balanced weighs each class "
                                   "inversely to its share of the training documents (for "
                                   "skewed corpora), in every fit of its validation grid and "
                                   "its refit, auto's linear models too", choices=CLASS_WEIGHTS,
                                   none="as class_weight", group="search"),
    "encoder": Param(None, "a sentence encoder: a local sentence-transformers or transformers "
                     "directory, or a model name in your Hugging Face cache (needs pip install "
                     "'gfbgcn[encoders]'); its frozen document embeddings go beside the linear "
                     "baseline's n-grams, into the graph's document nodes with features "
                     "encoder, and into auto's search, which also tries a linear head on them",
                     none="none", metavar="MODEL", group="encoder"),
    "encoder_finetune": _flag(False, "fine-tune the encoder jointly with the graph model, as "
                              "BertGCN does: a memory bank of the documents' embeddings, a "
                              "batch of documents through the encoder per step, the graph "
                              "model and a linear head on the embeddings mixed 0.7 / 0.3; "
                              "needs encoder, one label per document and full batch; slow on "
                              "a CPU (its time is estimated and printed first)",
                              group="encoder"),
    "cache": _flag(True, "cache the graph (and the encoder's embeddings) on disk "
                   "($GFBGCN_CACHE)", group="graph"),
    "build_workers": _int(None, "processes building the text graph (the graph does not "
                          "depend on it)", 1, none="every available core", metavar="N",
                          group="graph"),
    "verbose": _flag(False, "show progress bars and notes", cli_default=True, group="run"),
    "tensorboard": Param(None, "log each epoch's losses and validation metrics, and the "
                         "hyperparameters, for TensorBoard as training runs: one run per fit "
                         "in a new directory under DIR (auto: one per candidate); view them "
                         "with tensorboard --logdir DIR (needs pip install "
                         "'gfbgcn[tensorboard]')", none="off", metavar="DIR", group="run"),
}

#: Each parameter's default (what :class:`gfbgcn.TextGCNClassifier` takes when not given).
DEFAULTS: dict[str, Any] = {name: p.default for name, p in PARAMETERS.items()}

#: The paper's graph setting: English stop words, words seen fewer than 5 times dropped.  The
#: four benchmarks are built with it, and so is a corpus above :data:`SMALL_CORPUS_DOCS`.
PAPER_STOP_WORDS = "english"
PAPER_MIN_FREQ = 5
#: ``stop_words="auto"`` and ``min_freq="auto"`` (the defaults) on a corpus of up to this many
#: documents: no stop words, ``min_freq`` 2.  Measured on the five corpus files of
#: ``text-extra`` (3.7k-10.6k documents; ``docs/results/graph-defaults.md``): the paper's setting
#: had the lowest mean validation accuracy of the four settings `--auto` searches (81.54 %
#: against 82.83-83.00); no stop words with ``min_freq`` 1 or 2 were within 0.17 points of each
#: other, and 2 keeps half the word nodes of 1.  English stop words also remove "not", "no" and
#: "nor".  Above this size the paper's setting stays: the memory figures of the large corpora
#: (up to 1M documents, ``docs/benchmarks.md``) were measured with it.
SMALL_CORPUS_DOCS = 20_000
SMALL_CORPUS_MIN_FREQ = 2


def graph_defaults(stop_words: str | None, min_freq: int | str, num_docs: int,
                   benchmark: bool = False) -> tuple[str | None, int]:
    """``(stop_words, min_freq)`` with ``"auto"`` replaced by the setting for a corpus of
    ``num_docs`` documents (see :data:`SMALL_CORPUS_DOCS`), the paper's for one of its
    ``benchmark`` corpora (20ng, r8, r52, ohsumed: their graphs must be the paper's); other
    values are kept."""
    if benchmark or num_docs > SMALL_CORPUS_DOCS:
        return paper_graph(stop_words, min_freq)
    return (None if stop_words == AUTO else stop_words,
            SMALL_CORPUS_MIN_FREQ if min_freq == AUTO else int(min_freq))


#: The tokenizer of ``tokenizer=None`` for a benchmark of the paper (its ASCII cleaning, so that
#: the graphs' statistics are the paper's) and for any other corpus (words of any script).
PAPER_TOKENIZER = "textgcn"
CORPUS_TOKENIZER = "unicode"


def default_tokenizer(benchmark: bool) -> str:
    """The tokenizer ``tokenizer=None`` means for a corpus: :data:`PAPER_TOKENIZER` for one of
    the paper's benchmarks, :data:`CORPUS_TOKENIZER` for any other."""
    return PAPER_TOKENIZER if benchmark else CORPUS_TOKENIZER


def paper_graph(stop_words: str | None, min_freq: int | str) -> tuple[str | None, int]:
    """``(stop_words, min_freq)`` with ``"auto"`` replaced by the paper's setting."""
    return (PAPER_STOP_WORDS if stop_words == AUTO else stop_words,
            PAPER_MIN_FREQ if min_freq == AUTO else int(min_freq))


def check_parameter(name: str, value: Any, shown: str | None = None, *,
                    words: bool = True) -> None:
    """Refuse a value of parameter ``name`` outside its table entry (an
    :class:`~gfbgcn.core.errors.OptionError` naming ``shown``, default ``name``: a field that
    holds the parameter under another name, ``TrainConfig.seed``, names itself).  ``words``:
    accept the entry's words (``batch_size="auto"``), not yet resolved to a number."""
    PARAMETERS[name].check(shown or name, value, words)
