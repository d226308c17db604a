"""The rules of the pages' code blocks (docsite.examples), which the build and the example
tests both apply."""

from __future__ import annotations

from docsite.examples import blocks, problems

PAGE = """\
Text.

<!-- example: not-run gpu -->
```bash
gfbgcn train --dataset 20ng --device cuda
```

```python
print(1)
```

  ```text
  h = σ(Â W)
  ```

<!-- example: signature -->
```python
GFBConv(in_channels, out_channels)
```
"""


def test_blocks_are_read_with_their_marks() -> None:
    found = blocks(PAGE, "page.md")
    assert [(b.lang, b.mark, b.reason, b.runs, b.line) for b in found] == [
        ("bash", "not-run", "gpu", False, 4),
        ("python", None, None, True, 8),
        ("text", None, None, False, 12),
        ("python", "signature", None, True, 17),
    ]
    assert found[2].code == "h = σ(Â W)\n"  # the indentation of the fence removed
    assert problems(PAGE, "page.md") == []


def test_every_way_to_dodge_the_tests_is_refused() -> None:
    page = """\
```sh
rm -rf /
```

<!-- example: not-run because -->
```bash
gfbgcn train
```

<!-- example: skip -->
```python
x = 1
```

<!-- example: server -->

Prose between the mark and the fence.

```bash
gfbgcn serve m
```

<!-- example: signature -->
```bash
gfbgcn
```
"""
    assert problems(page, "p.md") == [
        "p.md:1: a ```sh block: use one of bash, python, console (run by the tests) or text",
        "p.md:6: not-run needs a reason, one of gpu, torchrun, long, network, your-data, ci",
        "p.md:11: unknown mark 'skip' (one of not-run, server, signature)",
        "p.md:24: a signature is a python block",
        "p.md: an example mark that is not on the line before a fence",
    ]


def test_a_mark_in_prose_is_not_a_mark() -> None:
    assert problems("Mark a block with `<!-- example: server -->` above it.\n", "p.md") == []
