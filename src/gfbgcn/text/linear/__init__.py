"""Linear text classifiers: the built-in baseline beside every graph model (word and character
n-gram TF-IDF, its classifier chosen on validation), one model per label for multi-label
corpora."""
