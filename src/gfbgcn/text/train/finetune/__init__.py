"""Fine-tuning a sentence encoder jointly with a graph model, as BertGCN does (Lin et al. 2021).

::

    result = train_finetune(graph, texts, encoder, TrainConfig(model="gfb-max"),
                            weight=0.7, encoder_lr=1e-5, device="cuda", log=print)
    result.probabilities        # [num_docs, C]: w p_graph + (1 - w) p_head
    result.encoder              # the fine-tuned encoder (embeds new documents)

The model, the step and what is detached: :mod:`.step`; the loop, validation and early
stopping: :mod:`.loop`; the time estimate logged before training: :mod:`.estimate`.
"""

from gfbgcn.text.train.finetune.estimate import (
    FinetuneEstimate,
    estimate_finetune_seconds,
    time_run,
)
from gfbgcn.text.train.finetune.loop import FinetuneResult, train_finetune, weights_digest
from gfbgcn.text.train.finetune.setup import (
    DEFAULT_BATCH_DOCS,
    DEFAULT_ENCODER_LR,
    DEFAULT_MAX_LENGTH,
    DEFAULT_WEIGHT,
    FinetuneRun,
    prepare_finetune,
)
from gfbgcn.text.train.finetune.step import finetune_step, mixture_log_prob, refresh_bank

__all__ = [
    "DEFAULT_BATCH_DOCS", "DEFAULT_ENCODER_LR", "DEFAULT_MAX_LENGTH", "DEFAULT_WEIGHT",
    "FinetuneEstimate", "FinetuneResult", "FinetuneRun", "estimate_finetune_seconds",
    "finetune_step", "mixture_log_prob", "prepare_finetune", "refresh_bank", "time_run",
    "train_finetune", "weights_digest",
]
