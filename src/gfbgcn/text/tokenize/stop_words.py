"""Stop-word lists: NLTK's by language, or a file of one word a line."""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from functools import lru_cache
from pathlib import Path

from gfbgcn.core.errors import InputError, StopWordsError
from gfbgcn.core.inputs import read_stream


@lru_cache(maxsize=8)
def nltk_stop_words(language: str = "english") -> frozenset[str]:
    """NLTK's stop-word list read through NLTK's own corpus reader (``$NLTK_DATA``)."""
    from nltk.corpus import stopwords

    try:
        return frozenset(stopwords.words(language))
    except LookupError:
        pass
    if download_stop_words_quietly():  # one attempt to fetch it where the network allows
        return frozenset(stopwords.words(language))
    raise StopWordsError(
        "NLTK's stop-word corpus was not found and could not be downloaded. Expected "
        "corpora/stopwords.zip (or corpora/stopwords/) under one of the NLTK_DATA directories; "
        "set NLTK_DATA to a folder holding it (python -m nltk.downloader stopwords)."
    )


def download_stop_words_quietly() -> bool:
    """Try NLTK's downloader once; True when the stop-word corpus arrived.

    NLTK prints its own multi-line "[nltk_data] Error loading ..." even when quiet, to the
    stream it is given (by default the stderr of import time, which redirecting ``sys.stderr``
    does not catch); the caller's one-line error says what to do, so the chatter is dropped.
    """
    import io

    try:
        import nltk

        return bool(nltk.download("stopwords", quiet=True, raise_on_error=False,
                                  print_error_to=io.StringIO()))
    except Exception:  # noqa: BLE001 - offline machines raise many kinds of errors here
        return False


@lru_cache(maxsize=1)
def nltk_languages() -> tuple[str, ...]:
    """The languages of NLTK's stop-word corpus (empty when the corpus is not installed)."""
    try:
        from nltk.corpus import stopwords

        return tuple(sorted(stopwords.fileids()))
    except LookupError:
        return ()


def parse_stop_words(spec: str) -> str | None:
    """The ``--stop-words`` value as a graph setting: ``None`` for ``none``, else the NLTK
    language or the path; checked now so that a bad value fails before any long work."""
    if spec.lower() == "none":
        return None
    load_stop_words(spec)
    return spec


def _is_file_spec(spec: str) -> bool:
    """A path rather than a language: NLTK's language names win, then anything path-like."""
    if spec.lower() in nltk_languages():
        return False
    return "/" in spec or "\\" in spec or Path(spec).suffix != "" or Path(spec).exists()


@lru_cache(maxsize=16)
def load_stop_words(spec: str) -> frozenset[str]:
    """An NLTK language's stop words, or a file's (one word a line, ``#`` starts a comment,
    UTF-8); both as written and casefolded, so that casefolding tokenizers match them."""

    if _is_file_spec(spec):
        try:
            # read once a process (cached): a pipe with its writer is read, one nothing writes
            # to, a directory or an endless device is one line (gfbgcn.core.inputs)
            text = read_stream(spec, "stop words").decode("utf-8-sig")
        except InputError as err:  # "PATH: why"
            reason = str(err).removeprefix(f"{spec}: ")
            raise StopWordsError(f"{spec}: cannot read the stop-word file ({reason})") from None
        except (OSError, UnicodeDecodeError) as err:
            reason = err.strerror if isinstance(err, OSError) and err.strerror else str(err)
            raise StopWordsError(f"{spec}: cannot read the stop-word file ({reason})") from None
        words: Iterable[str] = (line.split("#", 1)[0].strip() for line in text.splitlines())
    else:
        languages = nltk_languages()
        if languages and spec.lower() not in languages:
            raise StopWordsError(
                f"unknown stop-word language {spec!r}: give none, a file (one word a line) or "
                f"one of NLTK's languages: {', '.join(languages)}")
        try:
            words = nltk_stop_words(spec.lower())
        except StopWordsError as err:
            raise StopWordsError(str(err).replace("\n", " ")) from None
    kept = {w for w in words if w}
    return frozenset(kept | {w.casefold() for w in kept})


def stop_words_digest(spec: str | None) -> str | None:
    """sha256 of a stop-word *file*'s words (graph cache keys follow its content, not its
    path); None for an NLTK language or no stop words."""
    if spec is None or not _is_file_spec(spec):
        return None
    return hashlib.sha256("\n".join(sorted(load_stop_words(spec))).encode()).hexdigest()[:16]
