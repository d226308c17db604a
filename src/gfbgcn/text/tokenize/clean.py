"""The Text GCN string cleaner and the built-in tokenizers' stable identities."""

from __future__ import annotations

import re
from collections.abc import Callable

Tokenizer = Callable[[str], list[str]]


_CLEAN_STR_RULES: tuple[tuple[re.Pattern[str], str], ...] = tuple(
    (re.compile(pattern), repl)
    for pattern, repl in (
        (r"[^A-Za-z0-9(),!?\'\`]", " "),
        (r"\'s", " 's"),
        (r"\'ve", " 've"),
        (r"n\'t", " n't"),
        (r"\'re", " 're"),
        (r"\'d", " 'd"),
        (r"\'ll", " 'll"),
        (r",", " , "),
        (r"!", " ! "),
        (r"\(", r" \\( "),
        (r"\)", r" \\) "),
        (r"\?", r" \\? "),
    )
)


def clean_str(text: str) -> str:
    """Kim (2014) / Text GCN string cleaning; returns space-separated lower-case tokens."""
    for pattern, repl in _CLEAN_STR_RULES:
        text = pattern.sub(repl, text)
    return " ".join(text.split()).lower()


def textgcn_tokenize(text: str) -> list[str]:
    """The default tokenizer: ``clean_str`` then whitespace split."""
    return clean_str(text).split()


def whitespace_tokenize(text: str) -> list[str]:
    """Split on whitespace only (for pre-tokenized text)."""
    return text.split()


# The built-in tokenizers' identities are their names (gfbgcn.text.tokenize.registry), not
# their module paths: graph cache keys and saved models record them, so moving a function
# changes neither.
textgcn_tokenize.cache_key = "textgcn"  # type: ignore[attr-defined]
whitespace_tokenize.cache_key = "whitespace"  # type: ignore[attr-defined]


def tokenizer_key(tokenizer: Tokenizer) -> str | None:
    """A stable identity for cache keys, or None when the callable has none (e.g. a lambda).

    A tokenizer may define ``cache_key`` (a string) to name itself and its settings.
    """
    key = getattr(tokenizer, "cache_key", None)
    if isinstance(key, str):
        return key
    qualname = getattr(tokenizer, "__qualname__", "")
    module = getattr(tokenizer, "__module__", "")
    if not qualname or "<lambda>" in qualname or "<locals>" in qualname:
        return None
    return f"{module}.{qualname}"
