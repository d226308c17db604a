"""Prediction: the inductive model, saved models, the TF-IDF + LR baseline, the combined predictor."""
