"""``gfbgcn.text.search.selection``: a candidate replaces the baseline only when its paired
validation advantage stands out from the noise; hand-made per-document losses."""

from __future__ import annotations

import math

import numpy as np
import pytest

from gfbgcn.core.metrics import mean_log_loss
from gfbgcn.text.search.selection import (
    RULE,
    SelectionRule,
    choose_index,
    paired_advantage,
    passes,
    per_document_correct,
    per_document_log_loss,
)

Z = SelectionRule(z=1.64)


def _noisy(n: int, gain: float, spread: float, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """A baseline's losses and a candidate's whose per-document gain has mean ``gain`` exactly
    and sample standard deviation ``spread`` exactly."""
    base = np.random.default_rng(seed).uniform(0.2, 1.0, n)
    return base, _gaining(base, gain, spread, seed + 1)


def _gaining(base: np.ndarray, gain: float, spread: float, seed: int) -> np.ndarray:
    """Another candidate's losses against the same ``base`` (as :func:`_noisy`)."""
    noise = np.random.default_rng(seed).standard_normal(len(base))
    noise = (noise - noise.mean()) / noise.std(ddof=1)
    return base - (gain + spread * noise)


def test_a_tiny_mean_advantage_on_few_documents_is_refused():
    base, cand = _noisy(40, gain=0.01, spread=0.3)  # se 0.047: z about 0.2
    assert cand.mean() < base.mean()
    assert choose_index([base, cand], 0, Z) == 0
    # the plain lowest log-loss would have taken it
    assert choose_index([base, cand], 0, SelectionRule()) == 1


def test_a_large_consistent_advantage_is_taken():
    base, cand = _noisy(300, gain=0.1, spread=0.3)  # se 0.017: z about 5.8
    assert choose_index([base, cand], 0, Z) == 1
    assert choose_index([base, cand], 0, SelectionRule(z=2.33)) == 1


def test_the_threshold_is_z_standard_errors_plus_the_margin():
    base, cand = _noisy(100, gain=0.05, spread=0.2)  # se 0.02: z = 2.5 exactly
    mean, se = paired_advantage(base, cand)
    assert mean == pytest.approx(0.05) and se == pytest.approx(0.02)
    assert passes(base, cand, SelectionRule(z=2.4))
    assert not passes(base, cand, SelectionRule(z=2.6))
    assert passes(base, cand, SelectionRule(margin=0.04))
    assert not passes(base, cand, SelectionRule(margin=0.06))
    # both: 0.01 + 1.64 * 0.02 = 0.0428 < 0.05, 0.02 + 1.64 * 0.02 = 0.0528 > 0.05
    assert passes(base, cand, SelectionRule(z=1.64, margin=0.01))
    assert not passes(base, cand, SelectionRule(z=1.64, margin=0.02))


def test_the_leader_alone_is_tested_not_a_runner_up():
    base, strong = _noisy(300, gain=0.1, spread=0.3)
    lucky = _gaining(base, gain=0.11, spread=3.0, seed=7)  # leads on the mean, fails the test
    assert lucky.mean() < strong.mean() < base.mean()
    assert choose_index([base, strong, lucky], 0, Z) == 0
    assert choose_index([base, lucky, strong], 0, Z) == 0


def test_ties_go_to_the_earliest_and_a_tie_with_the_baseline_to_the_baseline():
    base, cand = _noisy(200, gain=0.1, spread=0.1)
    assert choose_index([base, cand, cand.copy()], 0, Z) == 1
    # an equal candidate before the baseline does not replace it
    assert choose_index([base.copy(), base], 1, SelectionRule()) == 1
    assert choose_index([base, base.copy()], 0, SelectionRule()) == 0


def test_the_baseline_index_need_not_be_0():
    base, cand = _noisy(300, gain=0.1, spread=0.3)
    weak = _gaining(base, gain=0.01, spread=0.3, seed=7)
    # e.g. an encoder head first: the n-gram baseline (index 1) is the one protected
    assert choose_index([weak, base], 1, Z) == 1
    assert choose_index([weak, base, cand], 1, Z) == 2
    assert choose_index([cand, weak, base], 2, Z) == 0
    assert choose_index([weak, cand, base], 2, Z) == 1


def test_zero_variance_passes_on_any_gain_and_ties_do_not():
    base = np.full(5, 0.7)
    assert choose_index([base, base - 1e-3], 0, SelectionRule(z=2.33)) == 1
    assert choose_index([base, base - 1e-3], 0, SelectionRule(margin=0.01)) == 0
    assert choose_index([base, base.copy()], 0, SelectionRule(z=2.33)) == 0


def test_degenerate_sizes():
    one = [np.array([0.9]), np.array([0.1])]
    assert choose_index(one, 0, SelectionRule(z=1.0)) == 0  # one document: no noise estimate
    assert math.isnan(paired_advantage(*one)[1])
    empty = [np.zeros(0), np.zeros(0)]
    assert choose_index(empty, 1, SelectionRule()) == 1
    only = [np.array([0.3, 0.4])]
    assert choose_index(only, 0) == 0


def test_the_baseline_always_and_the_plain_log_loss_are_the_two_ends():
    base, cand = _noisy(300, gain=0.1, spread=0.3)
    assert choose_index([base, cand], 0, SelectionRule(z=math.inf)) == 0
    assert choose_index([base, base - 1.0], 0, SelectionRule(z=math.inf)) == 0  # se 0
    assert SelectionRule(z=math.inf).name == "baseline"
    assert SelectionRule().name == "log-loss"
    assert SelectionRule(z=1.64).name == "log-loss, z >= 1.64"
    assert SelectionRule(margin=0.01).name == "log-loss, margin 0.01 nats"


@pytest.mark.parametrize("losses, baseline, problem", [
    ([], 0, "no candidates"),
    ([np.zeros(3)], 1, "baseline index"),
    ([np.zeros(3)], -1, "baseline index"),
    ([np.zeros(3), np.zeros(4)], 0, "shape"),
    ([np.zeros((3, 2)), np.zeros((3, 2))], 0, "shape"),
    ([np.zeros(3), np.array([0.1, np.nan, 0.2])], 0, "non-finite"),
    ([np.zeros(3), np.array([0.1, np.inf, 0.2])], 0, "non-finite"),
])
def test_bad_inputs_are_refused(losses, baseline, problem):
    with pytest.raises(ValueError, match=problem):
        choose_index(losses, baseline)


@pytest.mark.parametrize("z, margin", [(-1.0, 0.0), (math.nan, 0.0), (0.0, -0.01),
                                       (0.0, math.inf)])
def test_bad_rules_are_refused(z, margin):
    with pytest.raises(ValueError):
        SelectionRule(z=z, margin=margin)


def test_per_document_losses_average_to_the_mean_log_loss():
    y = np.array([0, 1, 2, 1])
    p = np.array([[0.7, 0.2, 0.1], [0.1, 0.8, 0.1], [0.5, 0.5, 0.0], [0.3, 0.3, 0.4]])
    losses = per_document_log_loss(y, p)
    assert losses.shape == (4,)
    assert losses[0] == pytest.approx(-math.log(0.7))
    assert losses[2] == pytest.approx(-math.log(1e-12))  # clipped, not infinite
    assert losses.mean() == mean_log_loss(y, p)


def test_the_default_rule_is_a_valid_rule():
    assert isinstance(RULE, SelectionRule)
    base, cand = _noisy(300, gain=0.1, spread=0.3)
    assert choose_index([base, cand], 0) == choose_index([base, cand], 0, RULE)


# --- accuracy_gain: a lower log-loss must come with more documents right ---

def _right(n: int, wrong: list[int]) -> np.ndarray:
    c = np.ones(n, dtype=bool)
    c[wrong] = False
    return c


def test_a_lower_log_loss_at_equal_accuracy_keeps_the_baseline_under_accuracy_gain():
    base, cand = _noisy(300, gain=0.1, spread=0.3)  # passes any of the tests below
    same = _right(300, [3, 50, 200])
    other = _right(300, [4, 60, 210])  # as many right, on other documents
    for rule in (SelectionRule(accuracy_gain=True), SelectionRule(z=1.0, accuracy_gain=True),
                 SelectionRule(margin=0.01, accuracy_gain=True)):
        assert choose_index([base, cand], 0, rule, [same, other]) == 0
        assert choose_index([base, cand], 0, rule, [same, same.copy()]) == 0
        # one document more right: taken
        assert choose_index([base, cand], 0, rule, [same, _right(300, [3, 50])]) == 1
        # fewer right: kept
        assert choose_index([base, cand], 0, rule, [_right(300, [3]), same]) == 0
    # without accuracy_gain the same losses replace the baseline whatever the correctness
    assert choose_index([base, cand], 0, SelectionRule(), [same, same.copy()]) == 1
    assert choose_index([base, cand], 0, SelectionRule()) == 1


def test_accuracy_gain_still_needs_the_loss_test_and_looks_at_the_leader_only():
    base, cand = _noisy(40, gain=0.01, spread=0.3)  # fails z >= 1
    more = [_right(40, [1, 2]), _right(40, [])]
    assert choose_index([base, cand], 0, SelectionRule(z=1.0, accuracy_gain=True), more) == 0
    assert choose_index([base, cand], 0, SelectionRule(accuracy_gain=True), more) == 1
    # the leader (lowest loss) ties the baseline in accuracy; a runner-up with more right
    # documents is not taken instead
    base, lead = _noisy(300, gain=0.2, spread=0.3)
    runner = _gaining(base, gain=0.1, spread=0.3, seed=5)
    right = [_right(300, [1, 2]), _right(300, [1, 2]), _right(300, [])]
    assert choose_index([base, lead, runner], 0, SelectionRule(accuracy_gain=True), right) == 0
    # with a protected index other than 0
    assert choose_index([lead, base], 1, SelectionRule(accuracy_gain=True),
                        [_right(300, []), _right(300, [7])]) == 0


def test_accuracy_gain_without_correctness_is_refused():
    base, cand = _noisy(30, gain=0.1, spread=0.3)
    rule = SelectionRule(accuracy_gain=True)
    with pytest.raises(ValueError, match="needs val_correct"):
        choose_index([base, cand], 0, rule)
    with pytest.raises(ValueError, match="candidates"):
        choose_index([base, cand], 0, rule, [np.ones(30)])
    with pytest.raises(ValueError, match="correctness of shape"):
        choose_index([base, cand], 0, rule, [np.ones(30), np.ones(29)])
    assert rule.name == "log-loss, accuracy up"
    assert SelectionRule(z=1.0, accuracy_gain=True).name == "log-loss, z >= 1 + accuracy up"
    assert SelectionRule(margin=0.01, accuracy_gain=True).name == \
        "log-loss, margin 0.01 nats + accuracy up"
    assert SelectionRule(z=math.inf, accuracy_gain=True).name == "baseline"


def test_per_document_correctness_averages_to_the_accuracy():
    y = np.array([0, 1, 2, 1])
    p = np.array([[0.7, 0.2, 0.1], [0.1, 0.8, 0.1], [0.5, 0.5, 0.0], [0.3, 0.3, 0.4]])
    assert per_document_correct(y, p).tolist() == [True, True, False, False]


def test_the_search_passes_correctness_when_its_rule_needs_it(monkeypatch):
    from gfbgcn.text.search import candidates as module
    from gfbgcn.text.search.candidates import Candidate, choose

    base, cand = _noisy(50, gain=0.1, spread=0.05)

    def row(losses, right):
        return Candidate(None, "linear", False, "linear", float(np.mean(right)), 0.0,
                         val_log_loss=float(losses.mean()), val_losses=losses,
                         val_correct=right)

    same = _right(50, [0, 1])
    rows = [row(base, same), row(cand, same.copy())]
    assert choose(rows, protected=0) is rows[0]  # the library's RULE: the protected always
    monkeypatch.setattr(module, "RULE", SelectionRule())
    assert choose(rows, protected=0) is rows[1]  # the plain log-loss: the lower loss
    monkeypatch.setattr(module, "RULE", SelectionRule(accuracy_gain=True))
    assert choose(rows, protected=0) is rows[0]  # equal accuracy: the baseline
    rows[1].val_correct = _right(50, [0])
    assert choose(rows, protected=0) is rows[1]
    rows[1].val_correct = None
    with pytest.raises(ValueError, match="correctness"):
        choose(rows, protected=0)
