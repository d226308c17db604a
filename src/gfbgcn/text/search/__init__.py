"""``--auto``: graph settings and model chosen on validation by successive halving
(:mod:`.auto`, :mod:`.pacing`)."""
