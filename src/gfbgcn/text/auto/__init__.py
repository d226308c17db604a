"""``--auto``: graph settings and model chosen on validation, and the own-corpora experiment."""
