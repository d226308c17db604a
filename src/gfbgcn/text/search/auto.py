"""``gfbgcn train --auto``: graph settings and model chosen on the validation split only.

The search is in two stages, each candidate trained with the run's seed on the same
train/validation documents (the validation split depends only on the seed and the corpus):

1. *Graph settings*, with the paper's model (GFB-MaxVec, exact GenVec): the paper's setting
   first (English stop words, ``min_freq`` 5, window 20), then stop words off with ``min_freq``
   1 and 2, and stop words on with ``min_freq`` 1, all at window 20.  ``min_freq`` 5 drops most
   of a small corpus's vocabulary and stop words carry the label of style- or question-type
   corpora, which is why both are searched.
2. *Models*, on the best graph: GCN and the GFB operators MeanVec and DiagVec (MaxVec, with
   exact GenVec, is stage 1's model).

   Left out, after the 18 searches of ``docs/results/vs-linear.md`` (6 corpora, 3 seeds, the
   search of 2026-11-26 with 14 trainings): TopKVec, the fast GenVec form of MaxVec, window 10,
   stop words with ``min_freq`` 2 and no stop words with ``min_freq`` 5.  Of those searches'
   graph parts (best graph-only candidate on validation) 12 were GFB-MaxVec with exact GenVec,
   one its fast form and none TopKVec; window 10 gave 3, stop words with ``min_freq`` 2 two and
   no stop words with ``min_freq`` 5 one, each a validation document or two from a kept
   setting.  Each costs a training, and ``--auto`` has a time target (``docs/benchmarks.md``).

3. *Input features*: the best graph-only candidate so far (stages 1 and 2, by validation
   accuracy) again on its graph with ``--features ngram`` (the baseline's n-gram TF-IDF as
   document input, below its vocabulary's size limit), then ``wordllama`` (256-d WordLlama
   vectors) if the ``embeddings`` extra is installed (otherwise the search says so in one
   line), then, given an encoder (``encoder``), ``encoder`` (the documents' embeddings as
   their input, :mod:`gfbgcn.text.train.features.encoder`).

The linear baseline (word 1-2-gram + char 2-5-gram TF-IDF, classifier and regularisation chosen
on validation, :mod:`gfbgcn.text.linear.baseline`) is fitted first, as the search's first and
cheapest candidate (``predictor`` ``linear``); given an encoder, so are the encoder head and
the baseline with the embeddings beside its n-grams (:mod:`gfbgcn.text.linear.encoder`), two
more linear candidates.

*The linear models are cross-fitted* (:func:`~gfbgcn.text.linear.smoothing.cross_fit`): each
one's chosen classifier is fitted on four of five folds of the training documents (training
and validation) and scores the fifth, so each is judged on every training document rather
than on the validation split's few hundred.  The one of highest held-out accuracy (ties: the
lower held-out log-loss, then the earlier) is the *partner* of the combinations and the
protected candidate of the selection rule; it is then smoothed over the documents' graph
where the same folds say that helps beyond noise (:mod:`gfbgcn.text.linear.smoothing`), the
smoothed copy one more linear candidate that becomes the partner.  Not above 50,000
documents, below 50 training documents or for a multi-label corpus
(:func:`~gfbgcn.text.linear.smoothing.why_not`), nor with ``cross_fit=False``: then the
partner is the linear model of lowest validation log-loss, unsmoothed.

Every trained candidate is also tried *combined* with the partner
(:mod:`gfbgcn.text.predict.combined`, weight chosen by validation log-loss on that model's
held-out validation probabilities), unless ``baseline=False`` (``--no-baseline``): then no
linear model is fitted, no combination tried.  A budget of N candidates is N trainings; the
linear models and the combinations cost no training and are not counted.  The answer is the
candidate the selection rule picks against the partner
(:data:`~gfbgcn.text.search.selection.RULE`, which is the partner itself: the reasons and the
rule without the baseline are in :mod:`gfbgcn.text.search.candidates`); a linear answer is
served as the combined predictor with graph weight 0, whose output is the linear model's.

*Weak candidates are stopped early* (successive halving's rule, applied as each candidate trains,
full batch only): at the rungs of :data:`RUNGS` (epochs 20, 40, 80) a graph candidate whose
best validation accuracy so far trails the incumbent's (the best graph-only candidate trained
so far) at the same epoch by more than :func:`prune_margin` is stopped, keeping its best
validated weights; ``auto.csv`` gives the epoch in ``stopped_at``.  Comparing at equal epochs
is what successive halving's rungs do; unlike halving it needs no resumable training and keeps
the search's order.  Graphs are built once per setting (cached on disk) and shared by all their
candidates; the baseline's n-gram counts are reused by the n-gram candidate.

Graph settings that leave many documents without a single word (the English stop list removes
"not", "no" and "nor", ``min_freq`` removes rare words; short phrases lose everything) are
warned about with their count (:data:`EMPTY_WARN`).
Test labels are never read for the choice; every candidate's test metrics are computed (the
training loop always evaluates) and kept in :attr:`Candidate.test` for the results tables only.
"""

from __future__ import annotations

import time
import warnings
from collections.abc import Callable
from dataclasses import replace
from typing import Any

import numpy as np
import torch

from gfbgcn.core.metrics import mean_log_loss
from gfbgcn.text.corpus.benchmarks import Corpus
from gfbgcn.text.corpus.weights import ClassWeight
from gfbgcn.text.graph.text_graph import GraphConfig, TextGraph, build_text_graph
from gfbgcn.text.linear.baseline import (
    BaselineResult,
    baseline_for_graph,
    corpus_rows,
    graph_split,
)
from gfbgcn.text.linear.encoder import fit_encoder_head, fit_ngram_encoder
from gfbgcn.text.linear.smoothing import (
    FOLDS,
    CrossFit,
    SmoothingChoice,
    cross_fit,
    smooth_linear,
    why_not,
)
from gfbgcn.text.predict.combined import choose_weight, mix
from gfbgcn.text.search.candidates import (  # noqa: F401  (re-exported: the search's types)
    AutoResult,
    Candidate,
    GraphSetting,
    accuracy_and_f1,
    best_by_accuracy,
    choose,
    chosen_summary,
)
from gfbgcn.text.search.pacing import (  # noqa: F401  (RUNGS, parse_budget: re-exported)
    RUNGS,
    Budget,
    RungRule,
    parse_budget,
    prune_margin,
)
from gfbgcn.text.search.selection import per_document_correct, per_document_log_loss
from gfbgcn.text.tokenize.clean import Tokenizer
from gfbgcn.text.train.config import TrainConfig, TrainResult
from gfbgcn.text.train.features import wordllama as word_features
from gfbgcn.text.train.features.encoder import CorpusEmbeddings, encoder_input
from gfbgcn.text.train.features.ngrams import ngram_fits, ngram_input
from gfbgcn.text.train.hooks import EpochCallback
from gfbgcn.text.train.run import train_text

REFERENCE_MODEL = ("gfb-max", False)  # (model, fast GenVec): the paper's model, stage 1
STAGE2_MODELS = (("gcn", False), ("gfb-mean", False), ("gfb-diag", False))

#: ``watch(name, config, graph settings)``: the
#: :data:`~gfbgcn.text.train.hooks.EpochCallback` of the graph candidate about to train
#: (``name``: :func:`safe_label`; ``graph settings``: window, min_freq, stop_words and
#: cooccurrence), or ``None`` to leave it unwatched.
Watch = Callable[[str, TrainConfig, dict[str, Any]], EpochCallback | None]


def safe_label(number: int, s: GraphSetting, model: str, fast: bool, features: str) -> str:
    """``03-gfb-mean-stop=none_min_freq=2_window=20``: the ``number``-th graph candidate
    trained, as a file name (what :data:`Watch` is told)."""
    what = model + ("-fast" if fast else "") + ("" if features == "onehot" else f"+{features}")
    setting = s.label().replace(" ", "_")
    return f"{number:02d}-{what}-{setting}"


#: Log a warning when a graph setting leaves at least this share of the documents without a word.
EMPTY_WARN = 0.01


def stage1_settings(stop_words: str | None = "english") -> list[GraphSetting]:
    """The window-20 settings of stage 1, the paper's first (``stop_words``: the language)."""
    sw = stop_words or "english"
    return [GraphSetting(sw, 5, 20), GraphSetting(None, 1, 20), GraphSetting(None, 2, 20),
            GraphSetting(sw, 1, 20)]


class _Search:
    """State of one search: graphs by setting, trained results, the baseline."""

    def __init__(self, corpus: Corpus, tokenizer: Tokenizer, base: TrainConfig, budget: Budget,
                 cache: bool, log: Callable[[str], None], cooccurrence: str,
                 device: str | torch.device | None = None, with_baseline: bool = True,
                 prune: bool = True, class_weight: ClassWeight = None,
                 encoder: CorpusEmbeddings | None = None,
                 sample_weight: np.ndarray | None = None,
                 stratify_validation: bool = False, watch: Watch | None = None,
                 cross_fit: bool = True) -> None:
        self.corpus, self.tokenizer, self.base, self.budget = corpus, tokenizer, base, budget
        self.watch, self.cross_fit = watch, cross_fit
        self.smoothed: SmoothingChoice | None = None
        self.smoothing_source: int | None = None
        self.cross_validated: list[dict[str, float]] = []  # per linear model, by its index
        self.prune, self.class_weight, self.with_baseline = prune, class_weight, with_baseline
        self.sample_weight, self.stratify_validation = sample_weight, stratify_validation
        self.cache, self.log, self.cooccurrence, self.device = cache, log, cooccurrence, device
        self.encoder = encoder
        self.graphs: dict[GraphSetting, TextGraph] = {}
        self.results: dict[tuple[GraphSetting, str, bool, str], TrainResult] = {}
        self.candidates: list[Candidate] = []
        self.baseline: BaselineResult | None = None
        self.linears: list[BaselineResult] = []  # the baseline first
        self.partner: int | None = None  # the linear model the combinations use
        self.split: dict[str, np.ndarray] = {}

    def graph(self, s: GraphSetting) -> tuple[TextGraph, float]:
        if s in self.graphs:
            return self.graphs[s], 0.0
        start = time.perf_counter()
        config = GraphConfig(window=s.window, min_freq=s.min_freq, stop_words=s.stop_words,
                             cooccurrence=self.cooccurrence)
        g = build_text_graph(self.corpus, config, self.tokenizer, cache=self.cache)
        g.stratify_validation = self.stratify_validation  # every graph: the same split
        seconds = time.perf_counter() - start  # the build's (the baseline has its own row)
        self.graphs[s] = g
        self._check_empty(s, g)
        if not self.split:  # the split is the same for every graph: fix it once
            self._fix_split(g)
        return g, seconds

    def _fix_split(self, g: TextGraph) -> None:
        self.split = graph_split(g, self.base.val_ratio, self.base.seed)
        if not self.with_baseline:
            return
        self.baseline = baseline_for_graph(  # its n-gram counts: for the ngram candidate
            self.corpus, g, self.base.val_ratio, self.base.seed,
            class_weight=self.class_weight, keep_counts=True,
            keep_features=self.encoder is not None or self.cross_fit,
            sample_weight=self.sample_weight)
        self._add_linear(self.baseline, "ngram-tfidf", g,
                         "linear baseline (word 1-2 + char 2-5 TF-IDF")
        if self.encoder is not None:
            seed, sp, e = self.base.seed, self.split, self.encoder
            head = fit_encoder_head(e.embeddings, g.labels, g.label_names, sp["train"],
                                    sp["val"], sp["test"], g.tokenizer, seed,
                                    class_weight=self.class_weight,
                                    sample_weight=self.sample_weight)
            self._add_linear(head, "encoder", g, "encoder head (the embeddings")
            both = fit_ngram_encoder(self.baseline, e.embeddings, g.labels, sp["train"],
                                     sp["val"], sp["test"], seed,
                                     class_weight=self.class_weight,
                                     sample_weight=self.sample_weight)
            self._add_linear(both, "ngram-tfidf+encoder", g,
                             "linear baseline with the embeddings beside its n-grams")
        fits = self._cross_fit_linears(g) if self.cross_fit else None
        if fits is None:  # on the validation split alone
            linear = [c for c in self.candidates if c.predictor == "linear"]
            self.partner = min(linear, key=lambda c: c.val_log_loss).linear_index
        else:
            self.partner = self._partner_by_cross_validation()
            self._smooth_partner(g, fits[self.partner])
        self.baseline.features = None  # what the stacked model and the cross-fits needed

    def _rows_of(self, b: BaselineResult) -> Any:
        """Every document's feature rows as the linear model ``b`` computes them."""
        assert self.baseline is not None
        return corpus_rows(b.model, self.baseline.features,
                           None if self.encoder is None else self.encoder.embeddings)

    def _cross_fit_linears(self, g: TextGraph) -> list[CrossFit] | None:
        """Every linear model's classifier fitted fold by fold on the training documents
        (:func:`~gfbgcn.text.linear.smoothing.cross_fit`), its held-out scores kept in
        :attr:`cross_validated`; None (the log says why) where they are not cross-fitted."""
        fit_docs = len(self.split["train"]) + len(self.split["val"])
        reason = why_not(self.linears[0], g.num_docs, fit_docs)
        if reason:
            self.smoothed = SmoothingChoice(reason=reason)
            self.log(f"auto: the linear models are judged on the validation split alone "
                     f"({reason})")
            return None
        fits = [cross_fit(b, self._rows_of(b), g.labels, self.split, self.base.seed,
                          class_weight=self.class_weight, sample_weight=self.sample_weight)
                for b in self.linears]
        self.cross_validated = [f.scores(g.labels) for f in fits]
        return fits

    def _partner_by_cross_validation(self) -> int:
        """The linear model of highest held-out accuracy on the training documents (ties:
        lower held-out log-loss, then the earlier), logged beside the others."""
        scores = self.cross_validated
        best = max(range(len(scores)), key=lambda i: (scores[i]["cv_accuracy"],
                                                      -scores[i]["cv_log_loss"], -i))
        words = ", ".join(f"{self.linears[i].model.description} {s['cv_accuracy']:.4f}"
                          for i, s in enumerate(scores))
        self.log(f"auto: the linear models cross-validated on the training documents "
                 f"({FOLDS} folds): {words}; the combinations' partner: "
                 f"{self.linears[best].model.description}")
        return best

    def _smooth_partner(self, g: TextGraph, fitted: CrossFit) -> None:
        """Where the cross-fitted choice keeps it (:mod:`gfbgcn.text.linear.smoothing`), the
        partner smoothed over the documents' graph, as one more linear candidate that
        becomes the partner (the unsmoothed one stays in the table)."""
        assert self.partner is not None
        partner = self.linears[self.partner]
        self.smoothing_source = self.partner
        self.smoothed, smoothed = smooth_linear(partner, self._rows_of(partner), g.labels,
                                                self.split, fitted)
        self.log(f"auto: smoothing the linear model over the documents' graph: "
                 f"{self.smoothed.sentence()}, {self.smoothed.seconds:.1f} s")
        if smoothed is None:
            return
        features = next(c.features for c in self.candidates
                        if c.predictor == "linear" and c.linear_index == self.partner)
        self.partner = len(self.linears)
        self._add_linear(smoothed, features, g,
                         "the linear model above smoothed over the documents' graph (its features")

    def _add_linear(self, b: BaselineResult, features: str, g: TextGraph, what: str) -> None:
        """A linear model as the search's next linear candidate (before every graph one)."""
        if self.encoder is not None and b.model.uses_encoder:
            b.model.embed, b.model.encoder_identity = self.encoder.embed, self.encoder.identity
        index = len(self.linears)
        self.linears.append(b)
        self.candidates.insert(index, self._linear_candidate(b, features, g, index, b.seconds))
        self.log(f"auto: {what}, {b.model.description}), validation accuracy "
                 f"{b.val['accuracy']:.4f}, {b.seconds:.1f} s")

    def _linear_candidate(self, b: BaselineResult, features: str, g: TextGraph, index: int,
                          seconds: float) -> Candidate:
        """The candidate row of the linear model ``b``, ``index`` of :attr:`linears`."""
        y_val, p_val = g.labels[self.split["val"]], b.val_proba()
        return Candidate(
            None, "linear", False, "linear", float(b.val["accuracy"]), seconds,
            test={} if b.test is None else {"accuracy": b.test["accuracy"],
                                            "macro_f1": b.test["macro_f1"]},
            features=features, linear=b.model.description, linear_index=index,
            val_log_loss=mean_log_loss(y_val, p_val),
            val_losses=per_document_log_loss(y_val, p_val),
            val_correct=per_document_correct(y_val, p_val))

    def _check_empty(self, s: GraphSetting, g: TextGraph) -> None:
        """Log how many documents ``s`` leaves without a word, when that is many."""
        empty = len(g.empty_docs())
        if empty >= EMPTY_WARN * max(g.num_docs, 1):
            # both settings remove words: on mpqa-opinion min_freq 5 alone empties 1,603 of
            # 10,603 phrases, the English stop list alone 104 (it has not/no/nor), both 2,664
            why = f" (stop words '{s.stop_words}', which remove words such as not/no/nor, " \
                f"and min_freq {s.min_freq})" if s.stop_words else f" (min_freq {s.min_freq})"
            # a warning, not a log line: it shows with --quiet too
            also = "; the search also tries stop words off" if s.stop_words else ""
            warnings.warn(f"--auto: {s.label()} leaves {empty:,} of {g.num_docs:,} documents "
                          f"without a word{why}{also}", stacklevel=2)

    def train(self, s: GraphSetting, model: str, fast: bool, features: str = "onehot") -> bool:
        """Train one candidate (and add its combination); False when the budget is spent."""
        if not self.budget.allows(len(self.results)):
            return False
        g, graph_seconds = self.graph(s)
        options = {"exact": not fast} if model.startswith("gfb-") else {}
        config = replace(self.base, model=model, layer_options=options, features=features)
        rule = self._rule()
        inputs = None
        if features == "ngram":  # the baseline's counts, once
            inputs = ngram_input(self.corpus.texts, g, counts=self.baseline.take_counts()
                                 if self.baseline else None)
        elif features == "encoder":
            assert self.encoder is not None
            inputs = encoder_input(self.encoder, g)
        on_epoch = None if self.watch is None else self.watch(
            safe_label(len(self.results) + 1, s, model, fast, features), config,
            {"window": s.window, "min_freq": s.min_freq, "stop_words": s.stop_words or "none",
             "cooccurrence": self.cooccurrence})
        result = train_text(g, config, progress=False, device=self.device, stop_rule=rule,
                            doc_input=inputs, sample_weight=self.sample_weight,
                            on_epoch=on_epoch)
        self.results[(s, model, fast, features)] = result
        seconds = graph_seconds + result.train_seconds + getattr(inputs, "seconds", 0.0)
        y, vi, ti = g.labels, self.split["val"], self.split["test"]
        graph_c = Candidate(s, model, fast, "graph", float(result.val["accuracy"]), seconds,
                            test=accuracy_and_f1(y, result.probabilities, ti, len(g.label_names)),
                            features=features,
                            stopped_at=None if rule is None else rule.stopped_at,
                            val_log_loss=mean_log_loss(y[vi], result.probabilities[vi]),
                            val_losses=per_document_log_loss(y[vi], result.probabilities[vi]),
                            val_correct=per_document_correct(y[vi], result.probabilities[vi]))
        self.candidates.append(graph_c)
        combined = "" if self.partner is None else self._combine(graph_c, result, g)
        stop = graph_c.stopped_at
        stopped = f" (stopped at epoch {stop}: trailing)" if stop else ""
        self.log(f"auto: {s.label()} {graph_c.model_label}: validation accuracy "
                 f"{graph_c.val_accuracy:.4f}{stopped}{combined}, {seconds:.1f} s")
        return True

    def _rule(self) -> RungRule | None:
        """The stop rule against the incumbent (None: no graph candidate yet, or mini-batch
        training, which has no per-epoch rule)."""
        graph = [c for c in self.candidates if c.predictor == "graph"]
        if not graph or self.base.batch_size or not self.prune:
            return None
        return RungRule(self.results[best_by_accuracy(graph).result_key].history,  # the incumbent's
                        prune_margin(len(self.split["val"])))

    def _combine(self, graph_c: Candidate, result: TrainResult, g: TextGraph) -> str:
        """Add the candidate combined with the partner linear model; the log's words for
        it."""
        assert self.partner is not None
        linear = self.linears[self.partner]
        y, vi, ti = g.labels, self.split["val"], self.split["test"]
        p_lin = linear.probabilities  # refitted on training + validation documents
        # the weight on the held-out validation probabilities (the refit has seen them)
        weight, combined_acc, loss = choose_weight(result.probabilities[vi],
                                                   linear.val_proba(), y[vi])
        mixed = mix(result.probabilities, p_lin, weight)
        val_mixed = mix(result.probabilities[vi], linear.val_proba(), weight)
        self.candidates.append(replace(
            graph_c, predictor="graph+linear", val_accuracy=combined_acc, weight=weight,
            test=accuracy_and_f1(y, mixed, ti, len(g.label_names)), val_log_loss=loss,
            linear_index=self.partner, val_losses=per_document_log_loss(y[vi], val_mixed),
            val_correct=per_document_correct(y[vi], val_mixed)))
        return f", combined {combined_acc:.4f} (w={weight:.2f})"


def run_auto(corpus: Corpus, tokenizer: Tokenizer, base: TrainConfig, *,
             budget: Budget | None = None, stop_words: str | None = "english",
             cooccurrence: str = "window", cache: bool = True,
             log: Callable[[str], None] = print,
             device: str | torch.device | None = None, baseline: bool = True,
             prune: bool = True, baseline_class_weight: ClassWeight = None,
             encoder: CorpusEmbeddings | None = None,
             sample_weight: np.ndarray | None = None,
             stratify_validation: bool = False, watch: Watch | None = None,
             cross_fit: bool = True) -> AutoResult:
    """The two-stage search of the module docstring; ``base`` gives seed, epochs, etc. (its
    ``class_weight`` weighs every graph candidate's loss); every candidate trains on
    ``device`` (default: auto, see :mod:`gfbgcn.core.device`); ``baseline=False``: no linear
    baseline, no combined candidates; ``prune=False``: no candidate is stopped early (every
    one trains to its own early stopping); ``baseline_class_weight``: the linear models'
    class weighting (``"balanced"``: inversely to the classes' frequency; a dict: by label
    name; :func:`gfbgcn.text.linear.baseline.fit_baseline`); ``encoder``: the corpus's
    embeddings by a frozen encoder (two more linear candidates and the encoder features);
    ``sample_weight`` ``[num_docs]``: each document's weight in every candidate's fits.  The
    choice between candidates (validation log-loss) is not weighted.
    ``stratify_validation``: the validation split of every graph stratified by class
    (:mod:`gfbgcn.text.corpus.splits`; the estimator's, for a corpus of the user's);
    ``watch``: the epochs of each graph candidate as it trains (:data:`Watch`);
    ``cross_fit=False``: the linear models are judged on the validation split alone (the
    combinations' partner: the lowest validation log-loss), and none is smoothed over the
    documents' graph (:mod:`gfbgcn.text.linear.smoothing`)."""
    start = time.perf_counter()
    search = _Search(corpus, tokenizer, base, budget or Budget(), cache, log, cooccurrence,
                     device, baseline, prune, baseline_class_weight, encoder, sample_weight,
                     stratify_validation, watch, cross_fit)
    model, fast = REFERENCE_MODEL
    for s in stage1_settings(stop_words):
        if not search.train(s, model, fast):
            break
    best = best_by_accuracy([c for c in search.candidates if c.predictor == "graph"]).graph_setting
    for model, fast in STAGE2_MODELS:
        if not search.train(best, model, fast):
            break
    _try_features(search)
    if search.baseline is not None:  # stage 3 did not take them: not needed after the search
        search.baseline.take_counts()
    protected = None if search.partner is None else next(
        i for i, c in enumerate(search.candidates)
        if c.predictor == "linear" and c.linear_index == search.partner)
    chosen = choose(search.candidates, protected)
    # the graph part: the chosen one's, or for the baseline alone the best graph-only candidate
    # (served with graph weight 0, so its output is the baseline's)
    part = chosen if chosen.predictor != "linear" else \
        best_by_accuracy([c for c in search.candidates if c.predictor == "graph"])
    if chosen.predictor == "linear":
        chosen.weight = 0.0
    return AutoResult(
        candidates=search.candidates, chosen=chosen,
        result=search.results[part.result_key],
        graph=search.graphs[part.graph_setting], baseline=search.baseline,
        seconds=time.perf_counter() - start, trained=len(search.results),
        results=search.results, linears=search.linears, smoothing=search.smoothed,
        smoothing_source=search.smoothing_source, cross_validated=search.cross_validated,
    )


def _try_features(search: _Search) -> None:
    """Stage 3: the best graph-only candidate again with ngram, then wordllama features."""
    if not search.candidates:
        return
    best = best_by_accuracy([c for c in search.candidates if c.predictor == "graph"])
    if ngram_fits(search.corpus.texts, np.flatnonzero(search.corpus.is_train)):
        search.train(best.graph_setting, best.model, best.fast, "ngram")
    else:  # the baseline hashes its n-grams at this size: no vocabulary to give the documents
        search.log("auto: skipping the n-gram-features candidate: the training split is too "
                   "large for an n-gram vocabulary (features ngram)")
    if not word_features.wordllama_available():
        search.log(f"auto: skipping the pretrained-features candidate: the 'embeddings' extra "
                   f"is not installed ({word_features.INSTALL_HINT})")
    elif not search.train(best.graph_setting, best.model, best.fast, "wordllama"):
        return
    if search.encoder is not None:
        search.train(best.graph_setting, best.model, best.fast, "encoder")
