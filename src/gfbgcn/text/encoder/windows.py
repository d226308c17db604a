"""Documents into token windows within a budget, never tokenizing more text than it can use.

A document becomes one window (``truncate``: its first ``max_length`` tokens, special tokens
included) or up to ``keep`` consecutive windows (``chunks``), each holding ``max_length`` minus
the special tokens of content, with the special tokens the tokenizer itself adds to each (its
overflowing-tokens mode: the model's own template, ``[CLS] ... [SEP]`` or ``<s> ... </s>``).

A 10 MB document is not tokenized whole: only a prefix of at most :data:`CHARS_PER_TOKEN`
characters per budgeted token is.  The prefix ends before a whitespace run where the last
quarter of it has one, and every tokenizer used for sentence encoders (WordPiece, BPE,
SentencePiece) splits words at whitespace first, so the tokens of the prefix are the first
tokens of the whole text, the last one included.  A prefix that turns out to hold fewer tokens
than the budget (long runs of whitespace, say) is tried again four times longer, until it does
or it is the whole text; so the windows are always those of the whole text.  A text with no
whitespace at all near the cut (a run of CJK characters, which BERT tokenizers split one
character a token anyway) is cut at the limit.
"""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["CHARS_PER_TOKEN", "cut_text", "token_windows"]

#: Characters of text tokenized per budgeted token: about twice what English WordPiece text
#: averages (4-5 characters a token, the space included), so one try almost always suffices.
CHARS_PER_TOKEN = 8
_WHITESPACE = (" ", "\n", "\t", "\r", "\u3000", "\xa0")


def cut_text(text: str, chars: int) -> str:
    """``text`` when it has at most ``chars`` characters, else a prefix of at most ``chars``
    ending before whitespace (found in its last quarter), else the first ``chars``."""
    if len(text) <= chars:
        return text
    cut = max(text.rfind(space, chars - chars // 4, chars + 1) for space in _WHITESPACE)
    return text[:cut].rstrip() if cut > 0 else text[:chars]


def token_windows(tokenizer: Any, texts: list[str], max_length: int, keep: int
                  ) -> tuple[list[list[int]], np.ndarray]:
    """The token windows of ``texts``: at most ``keep`` per document, each of at most
    ``max_length`` ids with the tokenizer's special tokens.

    Returns ``(windows, owner)``: the id lists in document order (a document's windows in
    text order) and ``owner`` ``[windows]`` int64, the index of each window's document.
    """
    content = max_length - tokenizer.num_special_tokens_to_add(pair=False)
    chars = max(content * keep * CHARS_PER_TOKEN, 1)
    found: list[list[list[int]]] = [[] for _ in texts]
    todo = list(range(len(texts)))
    while todo:
        prefixes = [cut_text(texts[i], chars) for i in todo]
        encoded = tokenizer(prefixes, truncation=True, max_length=max_length,
                            return_overflowing_tokens=True, return_attention_mask=False,
                            return_token_type_ids=False)
        per_text: list[list[list[int]]] = [[] for _ in todo]
        for ids, j in zip(encoded["input_ids"], encoded["overflow_to_sample_mapping"]):
            per_text[j].append(ids)
        retry = []
        for i, prefix, windows in zip(todo, prefixes, per_text):
            # a prefix shorter than the text must reach past the budget to stand for it
            if len(prefix) < len(texts[i]) and len(windows) <= keep:
                retry.append(i)
            else:
                found[i] = windows[:keep]
        todo, chars = retry, chars * 4
    owner = np.repeat(np.arange(len(texts), dtype=np.int64), [len(w) for w in found])
    return [w for windows in found for w in windows], owner
