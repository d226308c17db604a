"""The page ``gfbgcn serve`` shows at ``/``: paste a text, see its labels and probabilities.

One self-contained HTML document: its CSS and script are inline and it loads nothing else (no
fonts, no scripts from elsewhere), so it works on a machine without internet access.  The
script posts the text to ``/predict`` as JSON, the API's own request, and draws every label's
probability as a bar, the predicted label(s) first.  Label names reach the page as JSON and the
document only as text nodes (``textContent``), never as markup.
"""

from __future__ import annotations

import html
import json
from collections.abc import Sequence

_PAGE = """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>gfbgcn: __TITLE__</title>
<style>
  body { font-family: system-ui, sans-serif; margin: 2rem auto; max-width: 46rem;
         padding: 0 1rem; color: #1d2330; }
  h1 { font-size: 1.3rem; margin-bottom: .2rem; }
  .muted { color: #5b6475; font-size: .9rem; }
  textarea { width: 100%; box-sizing: border-box; min-height: 9rem; font: inherit;
             padding: .5rem; border: 1px solid #b9c0cc; border-radius: 4px; }
  .row { display: flex; gap: .8rem; align-items: center; margin: .6rem 0 1.2rem; }
  button { font: inherit; padding: .4rem 1.2rem; border: 0; border-radius: 4px;
           background: #2457c5; color: #fff; cursor: pointer; }
  button:disabled { background: #8da4d8; cursor: wait; }
  #error { color: #b3261e; }
  #answer { font-size: 1.2rem; margin: .2rem 0 .8rem; }
  table { border-collapse: collapse; width: 100%; }
  td { padding: .25rem .4rem; vertical-align: middle; }
  td.label { width: 30%; word-break: break-word; }
  td.prob { width: 5.5rem; text-align: right; font-variant-numeric: tabular-nums; }
  .bar { height: .9rem; background: #9db6ea; border-radius: 2px; }
  tr.predicted .bar { background: #2457c5; }
  tr.predicted td.label { font-weight: 600; }
</style>
</head>
<body>
<h1>gfbgcn: <span id="model-name"></span></h1>
<div class="muted" id="model-labels"></div>
<p><label for="text">Text to classify</label></p>
<textarea id="text" placeholder="Paste a document here"></textarea>
<div class="row">
  <button id="classify" type="button">Classify</button>
  <span class="muted">Ctrl+Enter classifies too</span>
  <span id="status" class="muted" role="status"></span>
</div>
<div id="error" role="alert"></div>
<div id="result" hidden>
  <div id="answer"></div>
  <div class="muted" id="note"></div>
  <table><tbody id="probabilities"></tbody></table>
</div>
<script>
"use strict";
const MODEL = __MODEL__;
const textBox = document.getElementById("text");
const button = document.getElementById("classify");
const statusLine = document.getElementById("status");
const errorLine = document.getElementById("error");
document.getElementById("model-name").textContent = MODEL.name;
document.getElementById("model-labels").textContent =
  MODEL.labels.length + " labels: " + MODEL.labels.join(", ") +
  (MODEL.multiLabel ? " (multi-label)" : "");

function show(prediction) {
  const chosen = MODEL.multiLabel ? prediction.labels : [prediction.label];
  document.getElementById("answer").textContent = chosen.length
    ? (MODEL.multiLabel ? "Labels: " : "Label: ") + chosen.join(", ")
    : "No label reaches the threshold";
  document.getElementById("note").textContent = prediction.no_known_words
    ? "No word of this text is in the model's vocabulary: these are the training label " +
      "frequencies." : "";
  const body = document.getElementById("probabilities");
  body.replaceChildren();
  const rows = Object.entries(prediction.probabilities).sort((a, b) => b[1] - a[1]);
  for (const [label, p] of rows) {
    const tr = document.createElement("tr");
    if (chosen.includes(label)) tr.className = "predicted";
    const name = document.createElement("td");
    name.className = "label";
    name.textContent = label;
    const cell = document.createElement("td");
    const bar = document.createElement("div");
    bar.className = "bar";
    bar.style.width = (100 * p).toFixed(1) + "%";
    cell.appendChild(bar);
    const value = document.createElement("td");
    value.className = "prob";
    value.textContent = p.toFixed(4);
    tr.append(name, cell, value);
    body.appendChild(tr);
  }
  document.getElementById("result").hidden = false;
}

async function classify() {
  errorLine.textContent = "";
  button.disabled = true;
  statusLine.textContent = "classifying...";
  try {
    const reply = await fetch("predict", {
      method: "POST", headers: {"Content-Type": "application/json"},
      body: JSON.stringify({texts: [textBox.value], top_k: 1})});
    const answer = await reply.json();
    if (!reply.ok) throw new Error(answer.error || ("HTTP " + reply.status));
    show(answer.predictions[0]);
    statusLine.textContent = "";
  } catch (err) {
    document.getElementById("result").hidden = true;
    errorLine.textContent = "Error: " + err.message;
    statusLine.textContent = "";
  } finally {
    button.disabled = false;
    document.body.dataset.state = "done";
  }
}

button.addEventListener("click", classify);
textBox.addEventListener("keydown", (e) => {
  if (e.key === "Enter" && (e.ctrlKey || e.metaKey)) classify();
});
</script>
</body>
</html>
"""


def _script_json(value: object) -> str:
    """``value`` as JSON safe inside a ``<script>`` element: ``<``, ``>`` and ``&`` escaped, so
    a label such as ``</script>`` stays a string."""
    text = json.dumps(value, ensure_ascii=False)
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def page_html(label_names: Sequence[str], *, model_name: str = "",
              multi_label: bool = False) -> str:
    """The page for a model named ``model_name`` with ``label_names``."""
    name = model_name or "text classifier"
    model = {"name": name, "labels": list(label_names), "multiLabel": multi_label}
    return _PAGE.replace("__TITLE__", html.escape(name)).replace("__MODEL__", _script_json(model))
