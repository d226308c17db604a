"""Stop-word lists: English shipped with gfbgcn, other languages NLTK's, or a file of one word
a line.

``english`` (the paper's setting, and the default of a corpus over 20,000 documents and of the
four benchmarks) is read from ``data/english_stop_words.txt`` in this package, so it never
needs NLTK's data or its download.  The file holds exactly NLTK's 179 English stop words, the
list Text GCN's preprocessing removes: the Snowball project's English list (BSD-3-Clause, its
licence in ``data/LICENSE-snowball.txt``) and the contractions NLTK added to it (the file's
header says where each part comes from).  Since the words are the same, graphs, their cache
keys and the reproduced tables are unchanged; a test compares the file with NLTK's corpus
where that is installed.  Other languages are read through NLTK (``$NLTK_DATA``, one download
attempt).
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from functools import lru_cache
from importlib import resources
from pathlib import Path

from gfbgcn.core.errors import InputError, StopWordsError
from gfbgcn.core.paths.inputs import read_stream

#: Languages whose stop words ship with gfbgcn: the file under this package's ``data/``.
SHIPPED: dict[str, str] = {"english": "english_stop_words.txt"}


def _words_of(text: str) -> list[str]:
    """The words of a one-word-a-line text, ``#`` starting a comment, blank lines skipped."""
    words = (line.split("#", 1)[0].strip() for line in text.splitlines())
    return [w for w in words if w]


@lru_cache(maxsize=4)
def shipped_stop_words(language: str = "english") -> frozenset[str]:
    """The stop words of a language in :data:`SHIPPED`, read from the package (no NLTK)."""
    data = resources.files("gfbgcn.text.tokenize").joinpath("data").joinpath(SHIPPED[language])
    return frozenset(_words_of(data.read_text(encoding="utf-8")))


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
    """A path rather than a language: the shipped and NLTK's language names win, then anything
    path-like."""
    if spec.lower() in SHIPPED or spec.lower() in nltk_languages():
        return False
    return "/" in spec or "\\" in spec or Path(spec).suffix != "" or Path(spec).exists()


@lru_cache(maxsize=16)
def load_stop_words(spec: str) -> frozenset[str]:
    """A language's stop words (:data:`SHIPPED`, else NLTK's), or a file's (one word a line,
    ``#`` starts a comment, UTF-8); both as written and casefolded, so that casefolding
    tokenizers match them."""

    if _is_file_spec(spec):
        try:
            # read once a process (cached): a pipe with its writer is read, one nothing writes
            # to, a directory or an endless device is one line (gfbgcn.core.paths.inputs)
            text = read_stream(spec, "stop words").decode("utf-8-sig")
        except InputError as err:  # "PATH: why"
            reason = str(err).removeprefix(f"{spec}: ")
            raise StopWordsError(f"{spec}: cannot read the stop-word file ({reason})") from None
        except (OSError, UnicodeDecodeError) as err:
            reason = err.strerror if isinstance(err, OSError) and err.strerror else str(err)
            raise StopWordsError(f"{spec}: cannot read the stop-word file ({reason})") from None
        words: Iterable[str] = _words_of(text)
    elif spec.lower() in SHIPPED:
        words = shipped_stop_words(spec.lower())
    else:
        languages = nltk_languages()
        if languages and spec.lower() not in languages:
            raise StopWordsError(
                f"unknown stop-word language {spec!r}: give none, a file (one word a line) or "
                f"one of the languages: {', '.join(sorted({*languages, *SHIPPED}))}")
        try:
            words = nltk_stop_words(spec.lower())
        except StopWordsError as err:
            raise StopWordsError(str(err).replace("\n", " ")) from None
    kept = {w for w in words if w}
    return frozenset(kept | {w.casefold() for w in kept})


def stop_words_digest(spec: str | None) -> str | None:
    """sha256 of a stop-word *file*'s words (graph cache keys follow its content, not its
    path); None for a language or no stop words."""
    if spec is None or not _is_file_spec(spec):
        return None
    return hashlib.sha256("\n".join(sorted(load_stop_words(spec))).encode()).hexdigest()[:16]
