"""Experiments behind every cell where our results differ from the paper's
(``gfbgcn reproduce fidelity``, report ``docs/results/fidelity.md``)."""
