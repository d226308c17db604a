"""A fine-tuning run's parts: the encoder being trained, the graph model, the head, the memory
bank, the optimiser with its two learning rates, ``Â`` and the document splits on the device."""

from __future__ import annotations

import copy
import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import torch
from torch import nn

from gfbgcn.core.errors import OptionError
from gfbgcn.core.validate import check_option
from gfbgcn.nn.models import FeatureTextGCN
from gfbgcn.nn.sparse import to_device
from gfbgcn.text.encoder.embed import SentenceEncoder
from gfbgcn.text.encoder.identity import TRUNCATE
from gfbgcn.text.graph.adjacency import graph_adjacency
from gfbgcn.text.graph.text_graph import TextGraph
from gfbgcn.text.train.checks import check_split
from gfbgcn.text.train.config import TrainConfig
from gfbgcn.text.train.finetune.batches import TokenizedDocuments, tokenize_documents
from gfbgcn.text.train.models import make_second_layer
from gfbgcn.text.train.setup import lambda_parameters

__all__ = ["DEFAULT_BATCH_DOCS", "DEFAULT_ENCODER_LR", "DEFAULT_MAX_LENGTH", "DEFAULT_WEIGHT",
           "FinetuneRun", "prepare_finetune"]

#: The graph part's share of the mixture, ``w`` (BertGCN's default ``m = 0.7``).
DEFAULT_WEIGHT = 0.7
#: Adam's learning rate for the encoder (BertGCN: 1e-5 to 2e-5; the graph model and the head
#: train at ``config.lr``).
DEFAULT_ENCODER_LR = 1e-5
#: Documents per step (BertGCN's batch size).
DEFAULT_BATCH_DOCS = 64
#: Tokens per document while fine-tuning, special tokens included (BertGCN's 128), unless the
#: encoder's own budget is smaller: the cost of a step grows with it, the attention's more
#: than linearly.
DEFAULT_MAX_LENGTH = 128
#: Documents per forward pass when the memory bank is refreshed: without gradients a pass
#: holds no activations for a backward, so it takes more documents than a step.
INFERENCE_BATCH_FACTOR = 4

#: The bank's rows of ``F`` are its embeddings times this.  The frozen encoder features' scale
#: was chosen on validation (:mod:`gfbgcn.text.train.features.encoder`); fine-tuning was not
#: studied there and keeps the scale it was written and tested with.
FINETUNE_SCALE = 0.1


@dataclass
class FinetuneRun:
    """Everything a fine-tuning run works on (:func:`prepare_finetune`).

    ``encoder`` is a copy of the given one (its own model, the caller's left as it was),
    ``bank`` ``[num_docs, dim]`` float32 holds every document's latest embedding (detached),
    ``tokens`` every document's window; ``train_idx``, ``val_idx``, ``test_idx`` and
    ``others`` (validation and test: the documents no step embeds) are document ids, int64 on
    the device.
    """

    encoder: SentenceEncoder
    gcn: FeatureTextGCN
    head: nn.Linear
    optimizer: torch.optim.Adam
    adj: torch.Tensor
    bank: torch.Tensor
    tokens: TokenizedDocuments
    texts: list[str]
    targets: torch.Tensor
    train_idx: torch.Tensor
    val_idx: torch.Tensor
    test_idx: torch.Tensor
    others: torch.Tensor
    num_classes: int
    weight: float
    batch_docs: int
    scale: float = FINETUNE_SCALE

    @property
    def device(self) -> torch.device:
        return self.encoder.device

    @property
    def num_docs(self) -> int:
        return int(self.bank.size(0))

    @property
    def inference_batch(self) -> int:
        return self.batch_docs * INFERENCE_BATCH_FACTOR

    def modules(self) -> dict[str, nn.Module]:
        """The trained parts by name (what early stopping keeps)."""
        return {"encoder": self.encoder.model, "gcn": self.gcn, "head": self.head}


def check_finetune_settings(config: TrainConfig, weight: float, encoder_lr: float,
                            batch_docs: int, max_length: int | None) -> None:
    """Refuse settings fine-tuning cannot use, naming them (an :class:`OptionError`)."""
    check_option("weight", weight, 0.0, 1.0)
    check_option("encoder_lr", encoder_lr, 0.0, low_open=True)
    check_option("batch_docs", batch_docs, 1, whole=True)
    if max_length is not None:
        check_option("max_length", max_length, 3, whole=True)
    if config.batch_size:
        raise OptionError("{0} is the graph models' mini-batch training; fine-tuning runs the "
                          "graph model on the whole graph each step (set {1})", "batch_size",
                          "batch_docs")
    if config.optimizer != "adam":
        raise OptionError("{0} {name}: fine-tuning trains with Adam", "optimizer",
                          name=config.optimizer)


def _trainable_copy(encoder: SentenceEncoder, max_length: int, device: torch.device
                    ) -> SentenceEncoder:
    """A copy of ``encoder`` whose model trains (gradients on) on ``device``, reading the
    first ``max_length`` tokens of a document (its identity says so: truncation)."""
    model = copy.deepcopy(encoder.model).to(device)
    model.requires_grad_(True)
    identity = dataclasses.replace(encoder.identity, max_length=max_length,
                                   long_documents=TRUNCATE)
    return SentenceEncoder(identity, encoder.tokenizer, model, device,
                           lowercase=encoder.lowercase)


def _split(graph: TextGraph, config: TrainConfig, device: torch.device
           ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]:
    """``(targets, train, validation, test)`` document ids on ``device``: the split of the
    graph models (:meth:`TextGraph.to_data` with the run's seed), checked alike."""
    data = graph.to_data(config.val_ratio, config.seed, edges=False)
    train = data.train_mask[:graph.num_docs].nonzero().view(-1)
    val = data.val_mask[:graph.num_docs].nonzero().view(-1)
    test = data.test_mask[:graph.num_docs].nonzero().view(-1)
    check_split(graph.labels, graph.label_names, train.numpy(), val.numpy(), config.val_ratio)
    targets = data.y[:graph.num_docs]
    return targets.to(device), train.to(device), val.to(device), test.to(device)


def _optimizer(encoder: nn.Module, gcn: nn.Module, head: nn.Module, config: TrainConfig,
               encoder_lr: float) -> torch.optim.Adam:
    """Adam in two groups: the encoder at ``encoder_lr`` (no weight decay: a pretrained
    model's weights are not pulled to zero), the graph model and the head at ``config.lr``
    and ``config.weight_decay``."""
    graph_part = [p for p in (*gcn.parameters(), *head.parameters()) if p.requires_grad]
    return torch.optim.Adam([
        {"params": list(encoder.parameters()), "lr": encoder_lr, "weight_decay": 0.0},
        {"params": graph_part, "lr": config.lr, "weight_decay": config.weight_decay},
    ])


def prepare_finetune(graph: TextGraph, texts: Sequence[str], encoder: SentenceEncoder,
                     config: TrainConfig, *, weight: float = DEFAULT_WEIGHT,
                     encoder_lr: float = DEFAULT_ENCODER_LR,
                     batch_docs: int = DEFAULT_BATCH_DOCS, max_length: int | None = None,
                     device: torch.device, adj: torch.Tensor | None = None) -> FinetuneRun:
    """The parts of a fine-tuning run on ``device`` (the bank zeros until it is filled).

    The graph model is :class:`~gfbgcn.nn.models.FeatureTextGCN` with ``config``'s second
    layer, hidden width and dropout; its document features come from the bank (word rows
    zero); the head is a linear classifier ``[dim] -> [C]`` with a bias.  Weights are drawn
    on the CPU from torch's default generator (seeded by the caller), then moved.
    """
    check_finetune_settings(config, weight, encoder_lr, batch_docs, max_length)
    texts = list(texts)
    if len(texts) != graph.num_docs:
        raise ValueError(f"{len(texts)} texts for a graph of {graph.num_docs} documents")
    budget = min(max_length or DEFAULT_MAX_LENGTH, encoder.identity.max_length)
    trained = _trainable_copy(encoder, budget, device)
    targets, train, val, test = _split(graph, config, device)
    num_classes, dim = len(graph.label_names), encoder.dim
    conv2 = make_second_layer(config.model, config.hidden, num_classes,
                              **dict(config.layer_options))
    gcn = FeatureTextGCN(graph.num_nodes, conv2, torch.zeros(graph.num_nodes, dim),
                         config.hidden, config.dropout).to(device)
    if not config.train_lambda:
        for p in lambda_parameters(gcn):
            p.requires_grad_(False)
    head = nn.Linear(dim, num_classes).to(device)
    adj = to_device(graph_adjacency(graph) if adj is None else adj, device)
    others = torch.cat([val, test]).sort().values
    return FinetuneRun(
        encoder=trained, gcn=gcn, head=head,
        optimizer=_optimizer(trained.model, gcn, head, config, encoder_lr), adj=adj,
        bank=torch.zeros(graph.num_docs, dim, device=device),
        tokens=tokenize_documents(trained, texts, budget), texts=texts, targets=targets,
        train_idx=train, val_idx=val, test_idx=test, others=others, num_classes=num_classes,
        weight=float(weight), batch_docs=int(batch_docs))


def shuffled_batches(train_idx: np.ndarray, batch_docs: int, rng: np.random.Generator
                     ) -> list[np.ndarray]:
    """The training documents in a random order (``rng``: the run's), cut into batches of
    ``batch_docs`` (the last one smaller)."""
    order = rng.permutation(train_idx)
    return [order[i:i + batch_docs] for i in range(0, len(order), batch_docs)]
