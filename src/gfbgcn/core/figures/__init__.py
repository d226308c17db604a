"""Figures drawn to PNG with matplotlib (the ``figures`` extra).

- :mod:`.canvas`: a figure made without pyplot, written atomically;
- :mod:`.confusion`: a confusion matrix;
- :mod:`.curves`: a training run's losses and validation metrics per epoch;
- :mod:`.label_scores`: the F1 of each label of a multi-label classifier;
- :mod:`.run`: the figures of a training run, drawn together.
"""
