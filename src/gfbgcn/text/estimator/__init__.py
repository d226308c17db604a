"""The public Python API of text classification: :class:`TextGCNClassifier`
(:mod:`gfbgcn.text.estimator.classifier`), a scikit-learn estimator that ``gfbgcn train``
itself calls, and the settings both check (:mod:`gfbgcn.text.estimator.settings`).

Above :mod:`gfbgcn.text.search` in the order of the text sub-packages: it may use all of them.
The class is imported when first asked for, so that the command line can import the settings
alone.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # what the lazy __getattr__ below returns, for type checkers and the docs
    from gfbgcn.text.estimator.classifier import TextGCNClassifier

__all__ = ["TextGCNClassifier"]


def __getattr__(name: str) -> Any:
    if name == "TextGCNClassifier":
        from gfbgcn.text.estimator.classifier import TextGCNClassifier

        return TextGCNClassifier
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
