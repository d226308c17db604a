"""Build-time helpers of the documentation site (``mkdocs.yml``): the CLI reference generated
from the real parsers, the comment docstrings of constants, the check that every public name is
documented, and the reader of the pages' code examples (run by ``tests/docsite``)."""
