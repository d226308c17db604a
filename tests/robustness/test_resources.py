"""A full disk or exhausted memory is the machine's limit, said in one line."""

from __future__ import annotations

import errno
import os

import pytest

from .conftest import FAST


def test_a_full_disk_at_save_names_the_model_directory(cli, corpus, tmp_path, monkeypatch):
    from gfbgcn.text.predict import saved

    def full(*args, **kwargs):  # as safetensors reports it: its own error around the OSError
        try:
            raise OSError(errno.ENOSPC, "No space left on device")
        except OSError as err:
            raise RuntimeError("failed to write tensors") from err

    monkeypatch.setattr(saved, "save_file", full)
    model = tmp_path / "m"
    result = cli("train", "--dataset", corpus, *FAST, "--save", model)
    result.assert_user_error(f"writing model {model}", "no space left on device")
    assert "internal error" not in result.err and not model.exists()


def test_a_file_size_limit_at_save_is_the_machine_not_a_bug(cli, corpus, tmp_path, monkeypatch):
    from safetensors import SafetensorError

    from gfbgcn.text.predict import saved

    def too_large(*args, **kwargs):  # what safetensors raised under `ulimit -f 200`
        raise SafetensorError("Error while serializing: I/O error: File too large (os error 27)")

    monkeypatch.setattr(saved, "save_file", too_large)
    model = tmp_path / "m"
    result = cli("train", "--dataset", corpus, *FAST, "--save", model)
    result.assert_user_error(f"writing model {model}", "ulimit -f")
    assert "internal error" not in result.err and not model.exists()


def test_out_of_memory_names_the_phase_and_what_to_change(cli, corpus, monkeypatch):
    from gfbgcn.text.train import run

    def exhausted(*args, **kwargs):
        raise MemoryError()

    monkeypatch.setattr(run, "train_full_batch", exhausted)  # inside the library's phase
    result = cli("train", "--dataset", corpus, *FAST)
    result.assert_user_error("out of memory while training gfb-max", "--batch-size")


def test_an_unrelated_runtime_error_is_still_a_bug(cli, corpus, monkeypatch):
    from gfbgcn.text.train import run

    def broken(*args, **kwargs):
        raise RuntimeError("shape mismatch")

    monkeypatch.setattr(run, "train_text", broken)
    result = cli("train", "--dataset", corpus, *FAST)
    assert result.status == 1 and "internal error (RuntimeError: shape mismatch)" in result.err


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full (Linux)")
def test_predictions_to_a_full_device_name_the_output(cli, saved_model):
    result = cli("predict", saved_model, "--text", "goal team", "--output", "/dev/full")
    result.assert_user_error("writing /dev/full", "no space left on device")


def test_sigterm_during_save_leaves_no_temporary_and_no_model(cli, corpus, tmp_path,
                                                              monkeypatch):
    """``kill PID`` while the model is written: the command ends as Ctrl-C would (the
    temporaries removed, nothing half-written in place), status 128 + 15."""
    import signal

    from gfbgcn.text.predict import saved

    def killed(tensors, filename):
        with open(filename, "wb") as fh:
            fh.write(b"half a model")
        os.kill(os.getpid(), signal.SIGTERM)  # handled before the next line runs
        pytest.fail("SIGTERM did not stop the save")

    monkeypatch.setattr(saved, "save_file", killed)
    out = tmp_path / "out"
    out.mkdir()
    result = cli("train", "--dataset", corpus, *FAST, "--save", out / "m")
    assert result.status == 128 + signal.SIGTERM and "terminated" in result.err
    assert list(out.iterdir()) == []  # neither the model nor a temporary
    assert signal.getsignal(signal.SIGTERM) is signal.SIG_DFL  # the handler was restored
