"""A tiny random BERT and its WordPiece tokenizer, written in both encoder layouts.

Built in the test session (no download): 2 layers of width 32 over a vocabulary of letters,
continuation letters and a few words, so that every lowercase text tokenizes (one word: a
few tokens) and long documents are cheap to make.
"""

from __future__ import annotations

import json
import shutil
import string
from pathlib import Path

import torch

SPECIALS = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
WORDS = ("the a of and to in is it that was for on with as be at by this an are not or have "
         "from good bad film news market oil trade price year said").split()
#: Position table of the tiny model: also its largest token budget.
MAX_POSITIONS = 64


def vocabulary() -> dict[str, int]:
    tokens = (SPECIALS + list(string.ascii_lowercase) + list(string.digits) + list(".,!?'-")
              + ["##" + c for c in string.ascii_lowercase] + WORDS)
    return {t: i for i, t in enumerate(dict.fromkeys(tokens))}


def write_plain(folder: Path, seed: int = 0) -> Path:
    """A transformers directory: config.json, model.safetensors, tokenizer files."""
    from tokenizers import Tokenizer, models, normalizers, pre_tokenizers, processors
    from transformers import BertConfig, BertModel, BertTokenizerFast

    vocab = vocabulary()
    tok = Tokenizer(models.WordPiece(vocab, unk_token="[UNK]"))
    tok.normalizer = normalizers.BertNormalizer(lowercase=True)
    tok.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    tok.post_processor = processors.TemplateProcessing(
        single="[CLS] $A [SEP]", pair="[CLS] $A [SEP] $B:1 [SEP]:1",
        special_tokens=[("[CLS]", vocab["[CLS]"]), ("[SEP]", vocab["[SEP]"])])
    tokenizer = BertTokenizerFast(tokenizer_object=tok, unk_token="[UNK]", pad_token="[PAD]",
                                  cls_token="[CLS]", sep_token="[SEP]", mask_token="[MASK]",
                                  model_max_length=MAX_POSITIONS)
    config = BertConfig(vocab_size=len(vocab), hidden_size=32, num_hidden_layers=2,
                        num_attention_heads=2, intermediate_size=37,
                        max_position_embeddings=MAX_POSITIONS)
    torch.manual_seed(seed)
    folder.mkdir(parents=True, exist_ok=True)
    BertModel(config).save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    return folder


POOLING_FLAGS = {"mean": "pooling_mode_mean_tokens", "cls": "pooling_mode_cls_token",
                 "max": "pooling_mode_max_tokens", "mean_sqrt": "pooling_mode_mean_sqrt_len_tokens"}


def write_sentence_transformers(plain: Path, folder: Path, *, pooling: str = "mean",
                                normalize: bool = True, max_seq_length: int | None = 24,
                                extra_modules: tuple[str, ...] = ()) -> Path:
    """A sentence-transformers directory: ``plain``'s files, modules.json, the pooling config
    and sentence_bert_config.json."""
    shutil.copytree(plain, folder)
    modules = [{"idx": 0, "name": "0", "path": "",
                "type": "sentence_transformers.models.Transformer"},
               {"idx": 1, "name": "1", "path": "1_Pooling",
                "type": "sentence_transformers.models.Pooling"}]
    if normalize:
        modules.append({"idx": 2, "name": "2", "path": "2_Normalize",
                        "type": "sentence_transformers.models.Normalize"})
    modules += [{"idx": len(modules), "name": m, "path": m, "type": m} for m in extra_modules]
    (folder / "modules.json").write_text(json.dumps(modules))
    (folder / "1_Pooling").mkdir()
    flags = {flag: name == pooling for name, flag in POOLING_FLAGS.items()}
    (folder / "1_Pooling" / "config.json").write_text(
        json.dumps({"word_embedding_dimension": 32, **flags}))
    settings = {"do_lower_case": False}
    if max_seq_length is not None:
        settings["max_seq_length"] = max_seq_length
    (folder / "sentence_bert_config.json").write_text(json.dumps(settings))
    return folder
