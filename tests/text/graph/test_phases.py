from __future__ import annotations

import time

from gfbgcn.text.corpus.benchmarks import Corpus
from gfbgcn.text.graph.phases import BUILD_PHASES, serial_seconds, timed
from gfbgcn.text.graph.text_graph import GraphConfig, build_text_graph
from gfbgcn.text.tokenize.clean import whitespace_tokenize


def test_timed_adds_up_and_none_records_nothing():
    phases: dict[str, float] = {}
    for _ in range(2):
        with timed(phases, "count"):
            time.sleep(0.01)
    with timed(None, "tokenize"):
        pass
    assert list(phases) == ["count"] and phases["count"] >= 0.02


def test_serial_seconds_counts_the_main_process_phases_only():
    phases = {"tokenize": 5.0, "vocabulary merge": 1.0, "count": 7.0, "edges": 2.0}
    assert serial_seconds(phases) == 3.0


def test_a_build_records_every_phase_a_cache_hit_none(tmp_path):
    texts = ["a b c a", "b c d", "c d e a", "e a b"] * 3
    corpus = Corpus("toy", texts, ["x", "y", "x", "y"] * 3, [True, True, False, True] * 3)
    cfg = GraphConfig(min_freq=1, stop_words=None, window=2)
    built = build_text_graph(corpus, cfg, whitespace_tokenize, cache_root=tmp_path, workers=1)
    assert list(built.build_phases) == list(BUILD_PHASES)
    assert all(s >= 0 for s in built.build_phases.values())
    # build_seconds is the build without the cache write
    assert abs(sum(built.build_phases.values()) - built.build_phases["cache write"]
               - built.build_seconds) < 0.05
    again = build_text_graph(corpus, cfg, whitespace_tokenize, cache_root=tmp_path)
    assert again.from_cache and again.build_phases == {}
