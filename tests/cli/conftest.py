"""The text verbs' tests use the text fixtures (a small trained model, one thread)."""

from tests.text.conftest import _one_thread, model_dir, trained  # noqa: F401
