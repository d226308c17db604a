"""The package version, in a module of its own so that any module can read it without importing
the package's API (``pyproject.toml`` holds the same number)."""

#: The release, as ``pyproject.toml`` gives it (``gfbgcn --version`` prints it).
__version__ = "0.1.0"
