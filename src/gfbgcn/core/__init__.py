"""The small core every task shares.

- :mod:`.paths`: the data root and the cache directory;
- :mod:`.extras`: optional dependencies (gfbgcn's extras), imported or named in one line;
- :mod:`.io`: atomic writes and hashing;
- :mod:`.runinfo`: seeds, threads, versions and machine provenance;
- :mod:`.early_stopping`, :mod:`.metrics`: training and evaluation helpers;
- :mod:`.store`: one JSON record per finished run (resumable grids);
- :mod:`.harness`: the reproduction harness (common options, provenance, the resumable grid);
- :mod:`.stats`, :mod:`.paper`: mean ± std, and the paper's numbers kept apart from ours.
"""
