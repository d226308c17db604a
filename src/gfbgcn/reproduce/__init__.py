"""The reproduction wing: the paper's experiments, their run records and their reports.

It stands on the library (``gfbgcn.core``, ``gfbgcn.nn``, ``gfbgcn.text``, ``gfbgcn.entity``,
``gfbgcn.graph_classification``) and nothing in the library imports it (``tests/test_layout.py``
checks this).  ``gfbgcn reproduce ...`` drives it from the command line:

- :mod:`~gfbgcn.reproduce.harness`, :mod:`~gfbgcn.reproduce.store`,
  :mod:`~gfbgcn.reproduce.record_schema`, :mod:`~gfbgcn.reproduce.stats`: run a grid, keep one
  checked record per run, summarise seeds;
- :mod:`~gfbgcn.reproduce.paper`: the paper's printed numbers (``paper_tables/*.json``), shown
  beside ours and never used as results;
- ``text/``, ``own_corpora/``, ``entity/``, ``graphs/``: one experiment and its report each;
- ``fidelity/``: the experiments behind every cell where our numbers differ from the paper's;
- :mod:`~gfbgcn.reproduce.figures`: the paper's pooling figure.
"""
