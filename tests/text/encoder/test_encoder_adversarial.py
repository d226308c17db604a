"""Sentence encoders against a user's mistakes and a machine's faults, through ``gfbgcn``:
a command stopped by Ctrl-C, ``kill`` or ``kill -9`` while it embeds documents or writes the
embedding cache leaves no model and nothing in the cache that a later run trusts; a broken,
partial or wrong encoder directory is one ``error:`` line (exit 2) before any embedding; a
document of 10 MB is classified.  The stopped commands run in child processes that pause at
the chosen moment (a forward pass, or half of a cache shard written), so the signal lands
there and nowhere else."""

from __future__ import annotations

import json
import os
import select
import signal
import subprocess
import sys
import textwrap
import time
import warnings
from pathlib import Path

import numpy as np
import pytest

import gfbgcn
from gfbgcn.cli import main
from tests.text.search.test_own_corpus import tiny_corpus, write_csv

#: Options of a small, fast training run on the encoder's embeddings.
TRAIN = ["--features", "encoder", "--hidden", "8", "--epochs", "2", "--min-freq", "1",
         "--quiet", "--threads", "1", "--build-workers", "1"]
#: How long a child may take to reach its pause (importing torch and transformers included).
PATIENCE = 180.0

#: The child: pause at the first forward pass (``embedding``) or after writing half of the first
#: cache shard (``writing``), say so on stdout, then run ``gfbgcn`` with the remaining arguments.
CHILD = textwrap.dedent("""
    import io, sys, time
    import numpy as np
    from gfbgcn.text.encoder.embed import SentenceEncoder

    def pause():
        print("PAUSED", flush=True)
        time.sleep(600)

    if sys.argv[1] == "embedding":
        SentenceEncoder._forward = lambda self, ids, mask: pause()
    else:
        savez = np.savez

        def half_then_pause(fh, **arrays):
            whole = io.BytesIO()
            savez(whole, **arrays)
            fh.write(whole.getvalue()[:len(whole.getvalue()) // 2])
            fh.flush()
            pause()

        np.savez = half_then_pause
    from gfbgcn.cli import main
    sys.exit(main(sys.argv[2:]))
""")


@pytest.fixture()
def bert(plain_dir: Path) -> Path:
    """The tiny random BERT of the encoder tests (read only)."""
    return plain_dir


@pytest.fixture(scope="module")
def corpus_csv(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("corpus") / "corpus.csv"
    write_csv(tiny_corpus(40), path)
    return path


@pytest.fixture(autouse=True)
def _own_cache(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("GFBGCN_CACHE", str(tmp_path / "cache"))
    return tmp_path / "cache"


def _child_env() -> dict[str, str]:
    """This process's environment, with this checkout's ``gfbgcn`` first on the path."""
    source = str(Path(gfbgcn.__file__).resolve().parents[1])
    return {**os.environ, "PYTHONPATH": os.pathsep.join([source, *sys.path])}


def _wait_for_pause(child: subprocess.Popen) -> None:
    """Read the child's stdout until it says PAUSED (bounded by PATIENCE)."""
    deadline = time.monotonic() + PATIENCE
    seen = b""
    while time.monotonic() < deadline and child.poll() is None:
        ready, _, _ = select.select([child.stdout], [], [], 1.0)
        if ready:
            seen += os.read(child.stdout.fileno(), 4096)
            if b"PAUSED" in seen:
                return
    child.kill()
    raise AssertionError(f"the child never paused: {seen!r} {child.stderr.read()!r}")


def _cache_files(cache: Path) -> tuple[list[Path], list[Path]]:
    """The cache's shards and its temporaries (names starting with a dot)."""
    files = list((cache / "embeddings").rglob("*")) if cache.exists() else []
    shards = [f for f in files if f.suffix == ".npz" and not f.name.startswith(".")]
    return shards, [f for f in files if f.name.startswith(".")]


def _cache_is_true(bert: Path, cache: Path, texts: list[str]) -> None:
    """A later run: every cached vector equals the model's own, no shard is warned about, and
    what a killed write left is removed by the next write."""
    from gfbgcn.text.encoder import EmbeddingCache, embed_documents, load_encoder
    from gfbgcn.text.encoder.cache import EmbeddingCacheWarning
    from gfbgcn.text.encoder.documents import text_digests

    encoder = load_encoder(str(bert))
    store = EmbeddingCache(encoder.identity, cache / "embeddings")
    fresh = encoder.embed(texts)
    with warnings.catch_warnings():
        warnings.simplefilter("error", EmbeddingCacheWarning)  # a shard that failed a check
        rows, found = store.lookup(text_digests(texts))
        np.testing.assert_allclose(rows[found], fresh[found], atol=1e-6)
        again = embed_documents(encoder, texts, cache=store)
    np.testing.assert_allclose(again, fresh, atol=1e-6)
    assert _cache_files(cache)[1] == []  # the next write removed the killed one's temporary


#: (signal, the moment it lands, the exit status, the line said): each signal once, each moment
#: at least twice (a child imports torch and transformers: a case costs seconds).
STOPS = [(signal.SIGINT, "embedding", 130, "interrupted"),
         (signal.SIGTERM, "writing", 128 + signal.SIGTERM, "terminated"),
         (signal.SIGKILL, "writing", -signal.SIGKILL, None),
         (signal.SIGKILL, "embedding", -signal.SIGKILL, None)]


@pytest.mark.parametrize("signum, phase, status, said", STOPS,
                         ids=[f"{signal.Signals(s).name}-{p}" for s, p, _, _ in STOPS])
def test_a_command_stopped_mid_work_leaves_nothing_a_later_run_trusts(
        bert, corpus_csv, tmp_path, _own_cache, signum, phase, status, said) -> None:
    model = tmp_path / "model"
    child = subprocess.Popen(
        [sys.executable, "-c", CHILD, phase, "train", "--dataset", str(corpus_csv), "--encoder",
         str(bert), *TRAIN, "--save", str(model)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=_child_env())
    try:
        _wait_for_pause(child)
        if phase == "writing":  # half a shard is on disk, under a temporary name
            assert _cache_files(_own_cache)[1], "no temporary while writing"
        child.send_signal(signum)
        _, err = child.communicate(timeout=PATIENCE)
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()
    assert child.returncode == status, err.decode(errors="replace")[-2000:]
    if said is not None:  # a signal it can handle: one line, and its temporaries removed
        lines = err.decode().strip().splitlines()
        assert "Traceback" not in err.decode() and said in lines, lines
        assert _cache_files(_own_cache)[1] == []
    assert not model.exists()  # no model from a run that did not finish
    shards, _ = _cache_files(_own_cache)
    assert shards == []  # the only shard being written was never completed
    _cache_is_true(bert, _own_cache, tiny_corpus(40).texts)


def _one_line(argv: list[str], capsys: pytest.CaptureFixture, match: str) -> None:
    status = main(argv)
    err = capsys.readouterr().err.strip()
    assert status == 2 and len(err.splitlines()) == 1, err
    assert err.startswith("error:") and match in err, err


def _broken(bert: Path, tmp_path: Path, case: str) -> Path:
    """A copy of the encoder with ``case`` done to it."""
    import shutil

    folder = Path(shutil.copytree(bert, tmp_path / case.replace(" ", "-")))
    config = json.loads((folder / "config.json").read_text())
    weights = folder / "model.safetensors"
    if case == "weights cut in half":  # a download that stopped part way
        weights.write_bytes(weights.read_bytes()[:weights.stat().st_size // 2])
    elif case == "no weights":
        weights.unlink()
    elif case == "no tokenizer":
        for name in os.listdir(folder):
            if name.startswith(("tokenizer", "vocab", "special_tokens")):
                (folder / name).unlink()
    elif case == "config not JSON":
        (folder / "config.json").write_text('{"model_type": "be')
    elif case == "a text generator":
        (folder / "config.json").write_text(json.dumps(
            {"model_type": "gpt2", "architectures": ["GPT2LMHeadModel"]}))
    elif case == "a decoder":
        (folder / "config.json").write_text(json.dumps({**config, "is_decoder": True}))
    elif case == "another model's weights":
        (folder / "config.json").write_text(json.dumps({**config, "num_hidden_layers": 3}))
    return folder


BROKEN = {"weights cut in half": "cannot load the model", "no weights": "no weights",
          "no tokenizer": "no tokenizer", "config not JSON": "config.json",
          "a text generator": "not an encoder", "a decoder": "decoder",
          "another model's weights": "weights do not fit config.json"}


@pytest.mark.parametrize("case", list(BROKEN))
def test_a_broken_encoder_is_one_line_before_any_embedding(bert, corpus_csv, tmp_path,
                                                            _own_cache, capsys, case) -> None:
    folder = _broken(bert, tmp_path, case)
    _one_line(["train", "--dataset", str(corpus_csv), "--encoder", str(folder), *TRAIN,
               "--save", str(tmp_path / "model")], capsys, BROKEN[case])
    assert not (tmp_path / "model").exists()
    assert _cache_files(_own_cache) == ([], [])  # nothing was embedded


def test_a_document_of_10_mb_is_classified(bert, corpus_csv, tmp_path, capsys) -> None:
    model = tmp_path / "model"
    assert main(["train", "--dataset", str(corpus_csv), "--encoder", str(bert), *TRAIN,
                 "--save", str(model)]) == 0
    words = ["goal", "match", "bank", "money", "unknownword"]
    huge = " ".join(words[i % len(words)] for i in range(2_000_000))[:10 * 1024 * 1024]
    source = tmp_path / "huge.txt"
    source.write_text(huge + "\nTekma gol\n", encoding="utf-8")
    capsys.readouterr()
    assert main(["predict", str(model), "--input", str(source)]) == 0
    out, err = capsys.readouterr()
    rows = out.strip().splitlines()
    assert len(rows) == 3 and "error" not in err, (rows[:2], err)
