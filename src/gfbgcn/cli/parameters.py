"""The command line's names for the Python API's parameters, in one place.

The library names a setting by its Python parameter in its messages (``random_state must be
...``, :class:`~gfbgcn.core.errors.OptionError`); the command line, which sets the same
settings through its options, shows each message with the option instead (``--seed must be
...``).  :func:`with_flags` does that for every error :func:`gfbgcn.cli.main` reports.
"""

from __future__ import annotations

import copy

from gfbgcn.core.errors import UserError

#: Parameters whose option is not ``--`` + the name with ``-`` for ``_`` (``min_freq``:
#: ``--min-freq``).  ``TrainConfig.seed`` and the classifier's ``random_state`` are ``--seed``;
#: the yes/no settings the command line turns off are its ``--no-...`` options.
_OPTIONS = {
    "random_state": "--seed",
    "cache": "--no-cache",
    "baseline": "--no-baseline",
    "verbose": "--quiet",
}


def flag_of(parameter: str) -> str:
    """The command-line option of a Python parameter (``"min_freq"`` -> ``"--min-freq"``); a
    name that already is an option is returned as it is."""
    if parameter.startswith("-"):
        return parameter
    return _OPTIONS.get(parameter, "--" + parameter.replace("_", "-"))


def with_flags(err: BaseException) -> BaseException:
    """``err`` as the command line reports it: a user error that names parameters is the same
    error naming their options instead (the original as its cause; still a user error, exit
    status 2); any other error is returned as it is."""
    if not isinstance(err, UserError) or not getattr(err, "parameters", ()):
        return err
    shown = copy.copy(err)
    shown.args = (err.render(flag_of),)  # what str() and the one-line report show
    shown.parameters, shown.values = (), {}
    shown.template = shown.args[0]
    shown.__cause__ = err
    return shown
