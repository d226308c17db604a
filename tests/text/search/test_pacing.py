"""What bounds an --auto search: --budget, and the rule that stops a trailing candidate."""

from __future__ import annotations

import pytest

from gfbgcn.text.search.pacing import RUNGS, Budget, RungRule, parse_budget, prune_margin


def test_parse_budget():
    assert parse_budget("8").candidates == 8 and parse_budget("10m").minutes == 10.0
    assert not Budget(candidates=2).allows(2) and Budget(minutes=5).allows(100)
    for bad in ("0", "x", "2.5", "-3m"):
        with pytest.raises(ValueError, match="^budget must be a number of candidates"):
            parse_budget(bad)


def _history(accs: list[float]) -> list[dict[str, float]]:
    return [{"epoch": i + 1, "val_acc": a} for i, a in enumerate(accs)]


def test_rung_rule_compares_at_equal_epochs_and_only_at_rungs():
    incumbent = _history([0.5] * 5 + [0.8] * 25)  # reaches 0.8 at epoch 6, stops at 30
    rule = RungRule(incumbent, margin=0.05)
    assert not rule(_history([0.7] * 10))  # epoch 10: no longer a rung (slow starters)
    assert not rule(_history([0.7] * 19))  # epoch 19: not a rung
    assert rule(_history([0.7] * 20)) and rule.stopped_at == 20  # 0.7 + 0.05 < 0.8
    close = RungRule(incumbent, margin=0.05)
    assert not close(_history([0.76] * 20))  # within the margin
    # a slow starter is compared with what the incumbent had at the same epoch
    slow = RungRule(_history([0.3] * 20 + [0.9] * 10), margin=0.05)
    assert not slow(_history([0.3] * 20))  # at epoch 20 the incumbent had 0.3 too
    # past the incumbent's last epoch its best stays what it reached
    short = RungRule(_history([0.9] * 12), margin=0.05)
    assert short(_history([0.8] * 20)) and short.stopped_at == 20
    assert RUNGS == (20, 40, 80) and prune_margin(100) == 0.03 and prune_margin(1000) == 0.02
