"""The files of a saved model as read back (:mod:`gfbgcn.text.predict.model_files`)."""

import pytest
import torch
from safetensors.torch import save_file

from gfbgcn.core.errors import ModelLoadError
from gfbgcn.text.predict.model_files import read_tensors


def test_tensors_read_back_are_equal_and_aligned_for_the_matrix_kernels(tmp_path):
    # odd lengths put every tensor after the first at an offset of the file not a multiple of 64
    tensors = {"a": torch.arange(3, dtype=torch.float32), "b": torch.rand(7, 5),
               "c": torch.arange(5, dtype=torch.int64), "d": torch.rand(11, 3, dtype=torch.float64)}
    save_file(tensors, str(tmp_path / "model.safetensors"))
    back = read_tensors(tmp_path / "model.safetensors")
    assert back.keys() == tensors.keys()
    for name, t in tensors.items():
        assert torch.equal(back[name], t) and back[name].dtype == t.dtype
        assert back[name].data_ptr() % 64 == 0, name


def test_a_corrupt_weights_file_is_one_line_naming_it(tmp_path):
    bad = tmp_path / "model.safetensors"
    bad.write_bytes(b"\x08\x00\x00\x00\x00\x00\x00\x00{broken}")
    with pytest.raises(ModelLoadError, match="model.safetensors: corrupt weights file") as info:
        read_tensors(bad)
    assert "\n" not in str(info.value)
