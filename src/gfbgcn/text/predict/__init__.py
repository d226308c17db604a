"""Prediction: the inductive model, saved models, the linear baseline, the combined predictor."""
