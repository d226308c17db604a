"""Tokenizers for any language, stop-word lists by name or file, and their names.

* ``textgcn``: the paper's ASCII cleaning (:func:`gfbgcn.text.tokenize.clean.textgcn_tokenize`);
  the default for the four benchmarks, so that their statistics match the paper.
* ``unicode``: the default for a user's own file.  Words are runs of Unicode word characters of
  any script (letters, combining marks, digits, connector punctuation; an apostrophe inside a
  word is kept, ``don't``), found with the maintained `regex <https://pypi.org/project/regex/>`_
  package, whose ``\\w`` and ``\\p{Script}`` classes follow the current Unicode standard (the
  standard library's ``re`` has no script classes).  Text is NFKC-normalised
  (:mod:`unicodedata`) and ``str.casefold()``-ed.  Scripts
  written without spaces between words (Han, Hiragana, Katakana, Thai, Lao, Khmer, Myanmar,
  Tibetan) are split into single characters (``cjk="chars"``) or overlapping character bigrams
  (``cjk="bigrams"``).  Tokens made of digits only are kept, or dropped with
  ``numbers=False``.
* ``whitespace``: split on whitespace only (pre-tokenized text).

A tokenizer's *name* says everything needed to rebuild it (``unicode``,
``unicode+bigrams``, ``unicode-numbers``, ``unicode-numbers+bigrams``); saved models record it
and reload the tokenizer by name.  The name is also the tokenizer's graph-cache key.
"""

from __future__ import annotations

import unicodedata

import regex

from gfbgcn.core.errors import TokenizerError
from gfbgcn.text.params import CJK_SPLITS
from gfbgcn.text.tokenize.clean import (
    Tokenizer,
    textgcn_tokenize,
    tokenizer_key,
    whitespace_tokenize,
)

TOKENIZERS = ("textgcn", "unicode", "whitespace")

# Scripts whose words are not separated by spaces: split into characters (or bigrams).
_UNSPACED = r"\p{Han}\p{Hiragana}\p{Katakana}\p{Thai}\p{Lao}\p{Khmer}\p{Myanmar}\p{Tibetan}"
# (?V1): set difference inside a class. A token is either a run of unspaced-script characters or
# a run of the other word characters, with inner apostrophes kept (don't, l'homme).
_TOKEN = regex.compile(
    rf"(?V1)(?P<unspaced>[{_UNSPACED}]+)"
    rf"|(?P<word>[\w--[{_UNSPACED}]]+(?:['’][\w--[{_UNSPACED}]]+)*)"
)
_DIGITS = regex.compile(r"\p{N}+")


class UnicodeTokenizer:
    """Casefolded Unicode words of any script; see the module docstring."""

    def __init__(self, numbers: bool = True, cjk: str = "chars") -> None:
        if cjk not in CJK_SPLITS:
            choices = ", ".join(CJK_SPLITS)
            raise TokenizerError(f"unknown CJK split {cjk!r}; choose one of {choices}")
        self.numbers = numbers
        self.cjk = cjk
        self.cache_key = "unicode" + ("" if numbers else "-numbers") + \
            ("+bigrams" if cjk == "bigrams" else "")

    def __repr__(self) -> str:
        return f"UnicodeTokenizer({self.cache_key!r})"

    def _unspaced(self, run: str) -> list[str]:
        if self.cjk == "chars" or len(run) == 1:
            return list(run)
        return [run[i : i + 2] for i in range(len(run) - 1)]

    def __call__(self, text: str) -> list[str]:
        out: list[str] = []
        # NFKC first: full-width Latin, half-width katakana and ligatures become their usual
        # forms, so that the same word is one token however it was typed
        for match in _TOKEN.finditer(unicodedata.normalize("NFKC", text).casefold()):
            word = match.group("word")
            if word is None:
                out.extend(self._unspaced(match.group("unspaced")))
            elif self.numbers or not _DIGITS.fullmatch(word):
                out.append(word)
        return out


def make_tokenizer(name: str, *, numbers: bool = True, cjk: str = "chars") -> Tokenizer:
    """A built-in tokenizer by its base name (``textgcn``, ``unicode``, ``whitespace``);
    ``numbers``/``cjk`` apply to ``unicode``."""
    if name == "unicode":
        return UnicodeTokenizer(numbers=numbers, cjk=cjk)
    if name == "textgcn":
        return textgcn_tokenize
    if name == "whitespace":
        return whitespace_tokenize
    raise TokenizerError(f"unknown tokenizer {name!r}; choose one of {', '.join(TOKENIZERS)}")


def tokenizer_from_name(name: str) -> Tokenizer | None:
    """The built-in tokenizer a recorded name (a graph's or saved model's) stands for, or None."""
    for builtin in (textgcn_tokenize, whitespace_tokenize):
        if name == tokenizer_key(builtin):
            return builtin
    base, _, rest = name.partition("+")
    if base not in ("unicode", "unicode-numbers") or rest not in ("", "bigrams"):
        return None
    return UnicodeTokenizer(numbers=base == "unicode", cjk="bigrams" if rest else "chars")


def resolve_tokenizer(name: str, tokenizer: Tokenizer | None = None) -> Tokenizer:
    """The tokenizer a model was trained with: ``tokenizer`` if given, else a built-in by name."""
    if tokenizer is not None:
        return tokenizer
    builtin = tokenizer_from_name(name)  # unicode tokenizers: options are in the name
    if builtin is not None:
        return builtin
    raise ValueError(
        f"the model was trained with the custom tokenizer {name!r}; only the built-in "
        f"tokenizers ({', '.join(TOKENIZERS)}) are reloadable by name: pass the same callable "
        "as tokenizer=..."
    )
