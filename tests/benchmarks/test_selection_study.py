"""``benchmarks/selection_study.py``: the rules it compares, its held-out protocol and its
pre-registered decision, on a hand-made search (no test data involved)."""

from __future__ import annotations

import numpy as np
import pytest

from tests.benchmarks._load import load_script


def _study():
    return load_script("selection_study")


def _onehot(pred: np.ndarray, c: int = 2, sure: float = 0.9) -> np.ndarray:
    p = np.full((len(pred), c), (1 - sure) / (c - 1))
    p[np.arange(len(pred)), pred] = sure
    return p


def _search(study, y, linear_pred, graph_preds, chosen=0):
    kinds, graph_of = ["linear"], [-1]
    for g in range(len(graph_preds)):
        kinds += ["graph", "graph+linear"]
        graph_of += [g, g]
    return study.Search("toy", 0, kinds + ["ensemble"], graph_of + [-1], y,
                        _onehot(linear_pred), np.stack([_onehot(p) for p in graph_preds]),
                        chosen=chosen, rule="accuracy", full=list(range(len(graph_preds))))


def test_graph_only_candidates_are_left_out_by_the_no_graph_only_rules():
    study = _study()
    y = np.array([0, 1] * 10)
    right = y.copy()
    wrong = 1 - y
    s = _search(study, y, wrong, [right])  # the graph alone is right everywhere
    idx = np.arange(len(y))
    probs = study.candidate_probs(s, idx)
    assert study.choose("accuracy", s, probs, idx) == 1  # the graph, before its combination
    # the combination's weight (chosen by log-loss) is 1 here: as right as the graph alone
    assert study.choose("accuracy, no graph-only", s, probs, idx) == 2
    assert study.choose("log-loss, no graph-only", s, probs, idx) == 2


def test_ties_go_to_the_baseline():
    study = _study()
    y = np.array([0, 1] * 10)
    s = _search(study, y, y.copy(), [y.copy()])
    idx = np.arange(len(y))
    assert study.choose("accuracy", s, study.candidate_probs(s, idx), idx) == 0


def test_held_out_scores_the_choice_on_the_other_half():
    study = _study()
    y = np.array([0, 1] * 20)
    s = _search(study, y, 1 - y, [y.copy()])  # graph right, baseline wrong everywhere
    res = study.held_out(s, repetitions=3)
    assert res["accuracy"]["accuracy"] == 1.0 and res["accuracy"]["graph"] == 1.0
    assert res["accuracy, no graph-only"]["graph+linear"] == 1.0


def test_decision_needs_a_higher_mean_and_no_more_losing_corpora():
    study = _study()
    rules = study.RULES
    flat = {r: 0.8 for r in rules}
    better = {**flat, "log-loss": 0.81}
    assert study.verdict({"a": flat, "b": flat})[0] == "accuracy"
    assert study.verdict({"a": better, "b": flat})[0] == "log-loss"
    # higher on average but lower on more corpora: the search keeps its rule
    mixed = [{**flat, "log-loss": 0.79}, {**flat, "log-loss": 0.79}, {**flat, "log-loss": 0.9}]
    assert study.verdict(dict(zip("abc", mixed)))[0] == "accuracy"


def test_the_ensemble_is_offered_last_and_only_by_its_rule():
    study = _study()
    y = np.array([0, 1] * 15)
    # three graph candidates, each wrong on a different third: their mean is right everywhere
    preds = [y.copy() for _ in range(3)]
    for k, p in enumerate(preds):
        p[10 * k:10 * (k + 1)] = 1 - y[10 * k:10 * (k + 1)]
    s = _search(study, y, 1 - y, preds)
    idx = np.arange(len(y))
    probs = study.candidate_probs(s, idx)
    assert len(probs) == len(s.kinds) and s.kinds[-1] == "ensemble"
    assert (probs[-1](idx).argmax(1) == y).all()
    assert study.choose("accuracy", s, probs, idx) == 1  # the first graph candidate (2/3)
    assert study.choose("accuracy, with the ensemble", s, probs, idx) == len(s.kinds) - 1
    s.full = [0]  # only the first ran its full length: the ensemble is that one alone
    probs = study.candidate_probs(s, idx)
    assert study.choose("accuracy, with the ensemble", s, probs, idx) == 1  # tie: earlier


def test_the_library_rules_are_the_library_function_on_per_document_losses():
    study = _study()
    from gfbgcn.text.search.selection import choose_index, per_document_log_loss

    rng = np.random.default_rng(0)
    y = np.array([0, 1] * 30)
    noisy = [np.where(rng.random(len(y)) < q, 1 - y, y) for q in (0.1, 0.3, 0.05)]
    s = _search(study, y, np.where(rng.random(len(y)) < 0.15, 1 - y, y), noisy)
    idx = np.arange(0, len(y), 2)
    probs = study.candidate_probs(s, idx)
    losses = study.document_losses(s, probs, idx)
    assert len(losses) == len(s.kinds) - 1  # the ensemble is not offered
    assert np.array_equal(losses[0], per_document_log_loss(y[idx], s.linear_val[idx]))
    correct = study.document_correct(s, probs, idx)
    assert [c.mean() for c in correct] == [(probs[k](idx).argmax(1) == y[idx]).mean()
                                           for k in range(len(correct))]
    for name, rule in study.BY_NAME.items():
        assert study.choose(name, s, probs, idx) == choose_index(
            losses, 0, rule, correct if rule.accuracy_gain else None)
    # the library's plain log-loss is the first study's log-loss rule
    assert study.BY_NAME["log-loss"] == study.SelectionRule()


def test_a_small_advantage_on_few_documents_keeps_the_baseline_under_a_test():
    study = _study()
    y = np.array([0, 1] * 10)
    graph = y.copy()
    graph[0] = 1 - y[0]  # the graph: right on 19 of 20, as sure as the baseline
    base = y.copy()
    base[:2] = 1 - y[:2]  # the baseline: right on 18 of 20
    s = _search(study, y, base, [graph])
    idx = np.arange(len(y))
    probs = study.candidate_probs(s, idx)
    assert study.choose("log-loss", s, probs, idx) != 0
    assert study.choose("log-loss, z >= 1.64", s, probs, idx) == 0
    assert study.choose("baseline", s, probs, idx) == 0


def test_the_baseline_rule_scores_the_baseline_on_every_half():
    study = _study()
    y = np.array([0, 1] * 20)
    base = y.copy()
    base[:8] = 1 - y[:8]  # 80 % right
    s = _search(study, y, base, [y.copy()])
    res = study.held_out(s, repetitions=4)
    assert res["baseline"]["accuracy"] == pytest.approx(0.8)
    assert res["baseline"]["linear"] == 1.0
    assert res["log-loss"]["linear"] == 0.0  # the graph, right everywhere, wins every half


def test_decision_excludes_rules_more_than_0_3_points_below_the_baseline_on_a_corpus():
    study = _study()
    shares = dict.fromkeys(study.RULES, 0.5)
    by = {c: dict.fromkeys(study.RULES, 0.80) for c in "abc"}
    by["a"]["log-loss"], by["b"]["log-loss"], by["c"]["log-loss"] = 0.82, 0.82, 0.796
    z = "log-loss, z >= 1.64"
    by["a"][z], by["b"][z], by["c"][z] = 0.81, 0.81, 0.7975
    chosen, eligible = study.decide(by, shares)
    assert "log-loss" not in eligible and z in eligible and "baseline" in eligible
    assert chosen == z
    # nothing eligible above the baseline: every other rule ties with it, and it is the
    # earliest of the equally conservative
    by["c"][z] = 0.79
    assert study.decide(by, shares)[0] == "baseline"


def test_decision_ties_go_to_the_rule_answering_with_the_baseline_more_often():
    study = _study()
    by = {c: dict.fromkeys(study.RULES, 0.80) for c in "ab"}
    a, b = "log-loss, z >= 1", "log-loss, z >= 2.33"
    for c in by:
        by[c][a], by[c][b] = 0.8100, 0.81005  # within 0.01 points
    shares = {**dict.fromkeys(study.RULES, 0.1), a: 0.2, b: 0.6}
    assert study.decide(by, shares)[0] == b
    shares[a] = 0.7
    assert study.decide(by, shares)[0] == a
    by["a"][b] = by["b"][b] = 0.812  # clearly higher: no tie
    assert study.decide(by, shares)[0] == b


def test_the_report_names_the_decision_and_the_library_rule():
    study = _study()
    y = np.array([0, 1] * 20)
    base = y.copy()
    base[:8] = 1 - y[:8]
    s = _search(study, y, base, [y.copy()])
    text = study.render([s], [study.held_out(s, 2)], 2, "cmd")
    assert "**Decision**" in text and "gfbgcn.text.search.selection.RULE" in text
    assert "| `baseline` |" in text and "eligible" in text


# --- the baseline re-chosen on the choosing half (grid files of baseline_grid_records.py) ---

def _scores(pred: np.ndarray, c: int = 2, margin: float = 2.0) -> np.ndarray:
    """Decision scores that put class ``pred`` ahead by ``margin``."""
    s = np.zeros((len(pred), c))
    s[np.arange(len(pred)), pred] = margin
    return s


def test_the_baseline_point_is_chosen_by_accuracy_then_log_loss_then_order():
    study = _study()
    y = np.array([0, 1] * 10)
    wrong = y.copy()
    wrong[:4] = 1 - y[:4]
    # point 1 is the most accurate
    grid = np.stack([_scores(wrong), _scores(y), _scores(y, margin=5.0)])
    point, t = study.choose_point(grid, y)
    assert point in (1, 2)
    # equal accuracy: the lower log-loss; points 1 and 2 differ only in scale, which the
    # temperature absorbs, so their losses tie and the earlier wins
    assert point == 1
    from gfbgcn.text.linear.grid import choose_temperature

    assert t == choose_temperature(grid[1], y)
    noisy = _scores(y, margin=1.0)
    noisy[:2] = _scores(1 - y[:2], margin=0.1)  # two near-misses
    assert study.choose_point(np.stack([_scores(wrong), noisy]), y)[0] == 1


def test_the_baseline_is_re_chosen_on_the_choosing_half():
    study = _study()
    y = np.array([0, 1] * 20)
    a, b = np.arange(0, 20), np.arange(20, 40)
    right_on_a, right_on_b = y.copy(), y.copy()
    right_on_a[b[:6]] = 1 - y[b[:6]]  # point 0: wrong on 6 of B
    right_on_b[a[:6]] = 1 - y[a[:6]]  # point 1: wrong on 6 of A
    s = _search(study, y, 1 - y, [y.copy()])  # the recorded baseline: wrong everywhere
    s.grid_val = np.stack([_scores(right_on_a), _scores(right_on_b)])
    for half, point in ((a, 0), (b, 1)):
        p, t = study.choose_point(s.grid_val[:, half], y[half])
        assert p == point
        lin = study.candidate_probs(s, half)[0]
        assert np.allclose(lin(np.arange(40)), study.point_proba(s.grid_val, point, t))
    # without rechoose (or without a grid file): the recorded baseline
    assert np.array_equal(study.candidate_probs(s, a, rechoose=False)[0](a), s.linear_val[a])
    # the combination mixes the graph candidate with the re-chosen baseline; a graph that is
    # right everywhere takes weight 1 against the recorded baseline, less against the new one
    from gfbgcn.text.predict.combined import choose_weight

    lin_a = study.baseline_on(s, a)
    w = choose_weight(s.graph_val[0][a], lin_a[a], y[a])[0]
    assert np.allclose(study.candidate_probs(s, a)[2](b),
                       study.mix(s.graph_val[0][b], lin_a[b], w))


def test_held_out_scores_the_re_chosen_baseline():
    study = _study()
    y = np.array([0, 1] * 20)
    s = _search(study, y, 1 - y, [y.copy()])
    base = y.copy()
    base[:8] = 1 - y[:8]  # 80 % right
    s.grid_val = np.stack([_scores(1 - y), _scores(base)])
    assert study.held_out(s, 3)["baseline"]["accuracy"] == pytest.approx(0.8)
    assert study.held_out(s, 3, rechoose=False)["baseline"]["accuracy"] == 0.0


def test_the_grid_check_finds_the_recorded_point():
    study = _study()
    rng = np.random.default_rng(0)
    y = rng.integers(0, 2, 30)
    grid = rng.normal(size=(4, 30, 2))
    grid[2] += 3 * np.eye(2)[y]  # the best point
    s = _search(study, y, y, [y.copy()])
    point, t = study.choose_point(grid, y)
    assert point == 2
    s.grid_val = grid.astype(np.float32).astype(np.float64)  # as the files keep them
    s.linear_val = study.point_proba(grid, point, t)  # the record: float64 scores
    same, diff = study.check_grid(s)
    assert same and diff < 1e-5
    s.linear_val = study.point_proba(grid, 1, t)
    assert not study.check_grid(s)[0]


def test_a_search_loads_its_grid_file_and_refuses_other_documents(tmp_path):
    import json

    study = _study()
    y = np.array([0, 1, 1, 0])
    record = tmp_path / "toy_seed0_auto.json"
    record.write_text(json.dumps({
        "dataset": "toy", "seed": 0, "choice": {"rule": "lowest validation log-loss"},
        "candidates": [{"predictor": "linear", "chosen": True, "stopped_at": ""},
                       {"predictor": "graph", "chosen": False, "stopped_at": ""},
                       {"predictor": "graph+linear", "chosen": False, "stopped_at": ""}]}))
    np.savez(tmp_path / "toy_seed0_auto_candidates.npz", val_labels=y,
             linear_val_proba=_onehot(y), graph_val_proba=_onehot(y)[None])
    assert study.load_search(record).grid_val is None
    grid = np.stack([_scores(y), _scores(1 - y)]).astype(np.float32)
    np.savez(tmp_path / "toy_seed0_auto_baseline_grid.npz", val_scores=grid, val_labels=y)
    s = study.load_search(record)
    assert s.grid_val is not None and np.array_equal(s.grid_val, grid)
    np.savez(tmp_path / "toy_seed0_auto_baseline_grid.npz", val_scores=grid, val_labels=1 - y)
    with pytest.raises(ValueError, match="differ"):
        study.load_search(record)


def test_the_report_shows_both_replays_and_decides_on_the_re_chosen_one():
    study = _study()
    y = np.array([0, 1] * 20)
    base = y.copy()
    base[:8] = 1 - y[:8]
    s = _search(study, y, 1 - y, [y.copy()])
    s.grid_val = np.stack([_scores(base)])
    s.linear_val = study.point_proba(s.grid_val, *study.choose_point(s.grid_val, y))
    text = study.render([s], [study.held_out(s, 2)], 2, "cmd",
                        recorded=[study.held_out(s, 2, rechoose=False)])
    assert "re-chosen: mean" in text and "Check of the grid files" in text
    assert "in 1 of 1 searches" in text and "re-chosen on each half" in text


# --- searches with an encoder: three linear candidates, the partner re-chosen per half ---

def _encoder_search(study, y, linear_preds, graph_preds, sure=(0.9, 0.9, 0.9)):
    """Three linear candidates first (as an ``--auto --encoder`` table), then per graph
    candidate its row and its combination with the partner."""
    kinds, graph_of = ["linear"] * 3, [-1] * 3
    for g in range(len(graph_preds)):
        kinds += ["graph", "graph+linear"]
        graph_of += [g, g]
    linears = np.stack([_onehot(p, sure=q) for p, q in zip(linear_preds, sure)])
    return study.Search("toy", 0, kinds + ["ensemble"], graph_of + [-1], y, linears[0],
                        np.stack([_onehot(p) for p in graph_preds]), chosen=0,
                        rule="log-loss", full=list(range(len(graph_preds))),
                        linears_val=linears)


def test_the_partner_is_re_chosen_on_the_choosing_half_and_protected():
    study = _study()
    y = np.array([0, 1] * 20)
    a, b = np.arange(0, 20), np.arange(20, 40)
    first, second = y.copy(), y.copy()
    first[b[:6]] = 1 - y[b[:6]]  # the first linear: right on A, wrong on 6 of B
    second[a[:6]] = 1 - y[a[:6]]  # the second: wrong on 6 of A
    s = _encoder_search(study, y, [1 - y, first, second], [y.copy()])
    assert s.group == "toy +encoder"
    assert study.partner_on(s, a) == 1 and study.partner_on(s, b) == 2
    assert study.protected_index(s, a) == 1 and study.protected_index(s, b) == 2
    probs = study.candidate_probs(s, a)
    for j in range(3):  # each linear row is its recorded probabilities, whatever the half
        assert np.array_equal(probs[j](b), s.linears_val[j][b])
    # the combination mixes the graph candidate with the partner chosen on A
    from gfbgcn.text.predict.combined import choose_weight

    w = choose_weight(s.graph_val[0][a], s.linears_val[1][a], y[a])[0]
    assert np.allclose(probs[4](b), study.mix(s.graph_val[0][b], s.linears_val[1][b], w))
    # the protected candidate always: the partner of each choosing half
    assert study.choose("baseline", s, probs, a) == 1
    assert study.choose("baseline", s, study.candidate_probs(s, b), b) == 2
    # scored on the other half: the first linear is wrong on 6 of 20 of B, the second on 6 of A
    res = study.held_out(s, 1, rules=("baseline",))
    assert res["baseline"]["linear"] == 1.0
    # a search without an encoder protects its only linear candidate
    plain = _search(study, y, y.copy(), [y.copy()])
    assert study.partner_on(plain, a) == 0 and study.protected_index(plain, a) == 0


def test_each_linear_candidate_is_re_chosen_on_the_choosing_half_from_its_grid():
    study = _study()
    y = np.array([0, 1] * 20)
    a, b = np.arange(0, 20), np.arange(20, 40)
    right_on_a, right_on_b = y.copy(), y.copy()
    right_on_a[b[:6]] = 1 - y[b[:6]]  # point 0: wrong on 6 of B
    right_on_b[a[:6]] = 1 - y[a[:6]]  # point 1: wrong on 6 of A
    # recorded: the third linear candidate right everywhere, the others wrong everywhere
    s = _encoder_search(study, y, [1 - y, 1 - y, y.copy()], [y.copy()])
    wrong = _scores(1 - y)
    s.linears_grid = [np.stack([wrong, wrong]), np.stack([_scores(right_on_a),
                                                          _scores(right_on_b)]),
                      np.stack([wrong, _scores(1 - y, margin=1.0)])]
    for half, point in ((a, 0), (b, 1)):
        lin = study.linears_on(s, half)
        p, t = study.choose_point(s.linears_grid[1][:, half], y[half])
        assert p == point and np.allclose(lin[1], study.point_proba(s.linears_grid[1], p, t))
        # the partner: the lowest log-loss of the re-chosen candidates (here the second)
        assert study.partner_on(s, half) == 1 and study.protected_index(s, half) == 1
        assert np.allclose(study.candidate_probs(s, half)[1](np.arange(40)), lin[1])
    # the recorded candidates without rechoose: the third is the partner
    assert np.array_equal(study.linears_on(s, a, rechoose=False), s.linears_val)
    assert study.partner_on(s, a, rechoose=False) == 2
    assert np.array_equal(study.candidate_probs(s, a, rechoose=False)[2](b), s.linears_val[2][b])
    # held out, the protected candidate always: the recorded third candidate is right
    # everywhere (chosen on all documents, the scoring half included); re-chosen on one half,
    # the second candidate's points each miss documents of the other
    res = study.held_out(s, 1, rules=("baseline",))
    first = study.held_out(s, 1, rechoose=False, rules=("baseline",))
    assert first["baseline"]["accuracy"] == 1.0 > res["baseline"]["accuracy"]
    assert study.linears_on(s, a) is study.linears_on(s, a)  # computed once per half


def test_an_encoder_record_loads_its_grid_files_and_refuses_other_documents(tmp_path):
    import json

    study = _study()
    y = np.array([0, 1, 1, 0])
    record = tmp_path / "toy_seed0_auto-encoder.json"
    rows = [{"predictor": "linear", "chosen": i == 0, "stopped_at": ""} for i in range(3)]
    record.write_text(json.dumps({"dataset": "toy", "seed": 0, "candidates": rows,
                                  "choice": {"val_log_loss": 0.1}}))
    linears = np.stack([_onehot(y)] * 3)
    np.savez(tmp_path / "toy_seed0_auto-encoder_candidates.npz", val_labels=y,
             linears_val_proba=linears, graph_val_proba=np.zeros((0, 4, 2)))
    assert study.load_search(record).linears_grid is None  # no grid files: as recorded
    ngram, head, stacked = (np.full((k, 4, 2), float(k)) for k in (2, 3, 4))
    np.savez(tmp_path / "toy_seed0_auto_baseline_grid.npz", val_scores=ngram, val_labels=y)
    np.savez(tmp_path / "toy_seed0_auto-encoder_linears_grid.npz", head_scores=head,
             stacked_scores=stacked, val_labels=y)
    grids = study.load_search(record).linears_grid
    assert [g.shape[0] for g in grids] == [2, 3, 4] and grids[2][0, 0, 0] == 4.0
    np.savez(tmp_path / "toy_seed0_auto_baseline_grid.npz", val_scores=ngram, val_labels=1 - y)
    with pytest.raises(ValueError, match="validation documents differ"):
        study.load_search(record)


def test_accuracy_gain_keeps_the_partner_against_a_sharper_combination_of_equal_accuracy():
    study = _study()
    y = np.array([0, 1] * 20)
    lin = y.copy()
    lin[:4] = 1 - y[:4]  # 90 % right, unsure (0.6)
    graph = y.copy()
    graph[:4] = 1 - y[:4]  # wrong on the same documents, sure (0.9): the mix is sharper
    s = _encoder_search(study, y, [lin, 1 - y, 1 - y], [graph], sure=(0.6, 0.9, 0.9))
    idx = np.arange(len(y))
    probs = study.candidate_probs(s, idx)
    assert study.partner_on(s, idx) == 0
    losses = study.document_losses(s, probs, idx)
    correct = study.document_correct(s, probs, idx)
    assert losses[4].mean() < losses[0].mean() and correct[4].sum() == correct[0].sum()
    assert study.choose("log-loss", s, probs, idx) in (3, 4)
    for rule in study.ACCURACY_GAIN_RULES:
        assert study.choose(rule.name, s, probs, idx) == 0
    # one document more right: the same rules take the leader
    graph2 = graph.copy()
    graph2[0] = y[0]
    s2 = _encoder_search(study, y, [lin, 1 - y, 1 - y], [graph2], sure=(0.6, 0.9, 0.9))
    probs2 = study.candidate_probs(s2, idx)
    assert study.choose("log-loss, accuracy up", s2, probs2, idx) in (3, 4)


def test_an_encoder_record_loads_its_three_linear_candidates(tmp_path):
    import json

    study = _study()
    y = np.array([0, 1, 1, 0])
    record = tmp_path / "toy_seed0_auto-encoder.json"
    rows = [{"predictor": "linear", "chosen": False, "stopped_at": ""} for _ in range(3)] + [
        {"predictor": "graph", "chosen": False, "stopped_at": ""},
        {"predictor": "graph+linear", "chosen": True, "stopped_at": ""}]
    record.write_text(json.dumps({"dataset": "toy", "seed": 0, "candidates": rows,
                                  "choice": {"val_log_loss": 0.1}}))
    linears = np.stack([_onehot(y), _onehot(1 - y), _onehot(y, sure=0.6)])
    np.savez(tmp_path / "toy_seed0_auto-encoder_candidates.npz", val_labels=y,
             linears_val_proba=linears, graph_val_proba=_onehot(y)[None])
    s = study.load_search(record)
    assert s.linears_val is not None and np.array_equal(s.linears_val, linears)
    assert s.group == "toy +encoder" and s.rule == "log-loss" and s.chosen == 4
    assert s.kinds == ["linear"] * 3 + ["graph", "graph+linear", "ensemble"]
    assert study.rule_of({"rule": "x (candidates.choose, RULE: log-loss, accuracy up)"}) == \
        "log-loss, accuracy up"
    assert study.rule_of({"rule": "lowest validation log-loss (candidates.choose)"}) == \
        "log-loss"
    assert study.rule_of({}) == "accuracy"


def test_the_third_study_decides_over_all_groups_and_renders(monkeypatch):
    third = load_script("selection_study_encoder", monkeypatch)
    study = third.sys.modules["selection_study"]
    assert third.RULES[:len(study.LIBRARY_RULES)] == study.SECOND_STUDY
    assert third.RULES[-3:] == ("log-loss, accuracy up", "log-loss, z >= 1 + accuracy up",
                                "log-loss, margin 0.01 nats + accuracy up")
    y = np.array([0, 1] * 20)
    base = y.copy()
    base[:8] = 1 - y[:8]
    plain = _search(study, y, base, [y.copy()])
    enc = _encoder_search(study, y, [base, 1 - y, 1 - y], [y.copy()])
    replay, results = third.replay([plain, enc], 2)
    assert list(replay.by_corpus) == ["toy", "toy +encoder"]
    assert set(replay.means) == set(third.RULES)
    _, first = third.replay([plain, enc], 2, first=True)
    text = third.render([plain, enc], results, 2, "cmd", first=first)
    assert "**Decision**" in text and "toy +encoder" in text and "RULE" in text
    assert "The first replay beside the re-chosen one" in text
    assert "The first replay's decision:" in text
    # the decision is the second study's procedure over these rules
    shares = {r: replay.share[r]["linear"] for r in third.RULES}
    assert replay.chosen == study.decide(replay.by_corpus, shares, third.RULES)[0]
