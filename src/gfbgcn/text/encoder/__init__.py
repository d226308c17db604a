"""Frozen pretrained sentence encoders: documents to embeddings, cached on disk.

::

    encoder = load_encoder("path/to/all-MiniLM-L6-v2")    # or a name in the Hugging Face cache
    vectors = embed_documents(encoder, texts)             # [n, 384] float32, unit rows

:func:`load_encoder` reads a sentence-transformers or transformers directory with transformers
(the optional extra ``gfbgcn[encoders]``); :meth:`SentenceEncoder.embed` embeds in length-sorted
batches; :func:`embed_documents` embeds only what the content-addressed cache
(:class:`EmbeddingCache`) lacks.  :class:`EncoderIdentity` is what the vectors depend on.
"""

from gfbgcn.text.encoder.cache import EmbeddingCache, EmbeddingCacheWarning
from gfbgcn.text.encoder.documents import embed_documents, text_digests
from gfbgcn.text.encoder.embed import DEFAULT_BATCH_SIZE, SentenceEncoder
from gfbgcn.text.encoder.identity import CHUNKS, LONG_DOCUMENT_MODES, TRUNCATE, EncoderIdentity
from gfbgcn.text.encoder.model import DEFAULT_LONG_DOCUMENTS, DEFAULT_MAX_CHUNKS, load_encoder
from gfbgcn.text.encoder.pooling import POOLINGS
from gfbgcn.text.encoder.source import EncoderLoadError

__all__ = [
    "CHUNKS", "DEFAULT_BATCH_SIZE", "DEFAULT_LONG_DOCUMENTS", "DEFAULT_MAX_CHUNKS",
    "LONG_DOCUMENT_MODES", "POOLINGS", "TRUNCATE", "EmbeddingCache", "EmbeddingCacheWarning",
    "EncoderIdentity", "EncoderLoadError", "SentenceEncoder", "embed_documents",
    "load_encoder", "text_digests",
]
