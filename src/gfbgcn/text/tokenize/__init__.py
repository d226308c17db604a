"""Tokenization: the Text GCN cleaner, Unicode tokenizers, stop words, vocabulary."""
