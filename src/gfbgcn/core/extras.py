"""Optional dependencies: packages only one verb needs, installed as an *extra* of gfbgcn.

``pip install gfbgcn`` brings what every verb needs; a verb that needs more imports it through
:func:`require`, which names the extra to install when the package is missing, in one line
(the CLI prints a :class:`~gfbgcn.core.errors.UserError` as ``error: ...`` and exits 2)::

    pyplot = require("matplotlib.pyplot", "figures", "gfbgcn figures pooling")
    # error: gfbgcn figures pooling needs matplotlib: pip install 'gfbgcn[figures]'

The extras (``pyproject.toml``): ``entity`` (rdflib), ``figures`` (matplotlib), ``embeddings``
(wordllama), ``encoders`` (transformers) and ``all`` (every one of them).
"""

from __future__ import annotations

import importlib
from types import ModuleType

from gfbgcn.core.errors import MissingExtraError


def install_hint(extra: str) -> str:
    """The command that installs ``extra``: ``pip install 'gfbgcn[extra]'``."""
    return f"pip install 'gfbgcn[{extra}]'"


def require(module: str, extra: str, purpose: str) -> ModuleType:
    """Import ``module`` (dotted names allowed) or fail in one line naming ``extra``.

    Args:
        module: what to import, e.g. ``"rdflib"`` or ``"matplotlib.pyplot"``.
        extra: the gfbgcn extra that installs it, e.g. ``"entity"``.
        purpose: what needs it, as the user typed it, e.g. ``"gfbgcn reproduce entity"``.

    Raises:
        MissingExtraError: ``module``'s top-level package (or the module itself) is not
            installed.  An import that fails *inside* an installed package (a broken
            dependency of it) is not masked: that error propagates unchanged.
    """
    try:
        return importlib.import_module(module)
    except ImportError as err:
        missing = err.name  # the module that could not be found (None: some other failure)
        if missing is None or not (module == missing or module.startswith(missing + ".")):
            raise
        top = module.split(".")[0]
        raise MissingExtraError(f"{purpose} needs {top}: {install_hint(extra)}") from err
