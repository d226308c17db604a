"""MkDocs hooks of the site (``mkdocs.yml``: ``hooks``).

* A page holding :data:`CLI_MARKER` gets the command-line reference written from the parsers
  in its place (:mod:`docsite.cli_reference`).
* Every page's code blocks follow the rules of :mod:`docsite.examples` (an unknown mark or a
  language the tests would not run fails the build).
* After the build, every public name must be documented and in the API reference
  (:mod:`docsite.api_check`); otherwise the build fails, naming each.
"""

from __future__ import annotations

import sys
import warnings
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
# This checkout's package and helpers, ahead of any installed gfbgcn.
for _path in (ROOT, ROOT / "src"):
    if str(_path) not in sys.path:
        sys.path.insert(0, str(_path))

from mkdocs.exceptions import PluginError  # noqa: E402 (after the path is set)

from docsite import api_check, cli_reference, examples  # noqa: E402

#: Where the generated CLI reference goes in a page.
CLI_MARKER = "<!-- cli-reference -->"


def on_page_markdown(markdown: str, page: Any, config: Any, files: Any) -> str:
    """Check the page's code blocks; put the CLI reference in place of its marker."""
    found = examples.problems(markdown, page.file.src_uri)
    if found:
        raise PluginError("code blocks the tests cannot run:\n  " + "\n  ".join(found))
    if CLI_MARKER in markdown:
        with warnings.catch_warnings():  # torch's deprecation notices as the verbs import it
            warnings.simplefilter("ignore", DeprecationWarning)
            markdown = markdown.replace(CLI_MARKER, cli_reference.cli_markdown())
    return markdown


def on_post_build(config: Any) -> None:
    """Fail the build where a public name is undocumented or missing from the reference."""
    found = api_check.problems(ROOT / "src", Path(config["site_dir"]))
    if found:
        raise PluginError(f"{len(found)} public name(s) not documented on the site:\n  "
                          + "\n  ".join(found))
