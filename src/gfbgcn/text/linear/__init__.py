"""Linear text classifiers: the built-in baseline beside every graph model (word and character
n-gram TF-IDF, its classifier chosen on validation), one model per label for multi-label
corpora, the models over a frozen encoder's embeddings, and the documents' neighbourhood graph
over which ``--auto`` may smooth a linear model's answers (:mod:`.doc_graph`,
:mod:`.smoothing`)."""
