"""The page at ``/`` in a real browser (headless Chromium, Debian's ``chromium`` package): a
person types a text, classifies it, and sees the labels with the probabilities the API gives;
a refused request shows the server's error.  Skipped, with the reason, where Chromium is absent
(CI does not install it)."""

from __future__ import annotations

import pytest

from tests.serve.chromium import Chromium, chromium_binary

pytestmark = pytest.mark.skipif(
    chromium_binary() is None,
    reason="headless Chromium is not installed (Debian: apt-get install chromium); the page's "
           "browser test needs it")

#: The rows of the page's probability table: [label, bar, probability] as shown.
ROWS = ("[...document.querySelectorAll('#probabilities tr')].map("
        "r => [r.className, ...[...r.cells].map(c => c.textContent)])")


def _classify(browser: Chromium, text: str, *, keyboard: bool) -> None:
    """Type ``text`` into the box as a person would (focus, insert, Ctrl+Enter or a click)."""
    browser.evaluate("delete document.body.dataset.state; document.getElementById('text')"
                     ".value = ''; document.getElementById('text').focus(); true")
    browser.call("Input.insertText", {"text": text}, browser.session)
    if keyboard:
        for kind in ("keyDown", "keyUp"):
            browser.call("Input.dispatchKeyEvent", {
                "type": kind, "key": "Enter", "code": "Enter", "windowsVirtualKeyCode": 13,
                "modifiers": 2}, browser.session)  # 2: Ctrl
    else:
        browser.evaluate("document.getElementById('classify').click(); true")
    browser.wait_for("document.body.dataset.state === 'done'")


def test_the_page_classifies_a_pasted_text(server, tmp_path) -> None:
    text = "match goal team player"
    expected = server.client.post_json("/predict", {"texts": [text]}).json()["predictions"][0]
    browser = Chromium(tmp_path / "profile")
    try:
        browser.open(server.client.url + "/")
        assert browser.wait_for("document.readyState === 'complete' && "
                                "(document.getElementById('model-name') || {}).textContent"
                                ) == "gfb-max"
        _classify(browser, text, keyboard=True)
        assert browser.evaluate("document.getElementById('answer').textContent") == (
            f"Label: {expected['label']}")
        rows = browser.evaluate(ROWS)
        ranked = sorted(expected["probabilities"].items(), key=lambda kv: -kv[1])
        assert [(label, value) for _, label, _, value in rows] == [
            (label, f"{p:.4f}") for label, p in ranked]
        assert [cls for cls, *_ in rows] == ["predicted", "", ""]
        assert browser.evaluate("document.getElementById('error').textContent") == ""
        browser.screenshot(tmp_path / "page.png")  # for a person debugging a failure
        # a text over the server's 4 KiB limit: the page shows the server's own error
        _classify(browser, "goal " * 1000, keyboard=False)
        error = browser.evaluate("document.getElementById('error').textContent")
        assert error.startswith("Error: request body of ") and "over the limit" in error
        assert browser.evaluate("document.getElementById('result').hidden") is True
    finally:
        browser.close()
