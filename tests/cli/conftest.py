"""Fixtures of the verbs' tests: the text fixtures (a small trained model, one thread) and AIFB
loaded once (``reproduce entity``)."""

from tests.entity.conftest import aifb  # noqa: F401
from tests.text.conftest import _one_thread, model_dir, trained  # noqa: F401
