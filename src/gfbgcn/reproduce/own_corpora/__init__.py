"""The own-corpora experiment: ``--auto`` on user-style corpora, its records and report."""
