"""pyproject.toml asks for ranges (gfbgcn installs beside any torch), constraints.txt pins what
we test with, and every optional import names an extra that installs it."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

tomllib = pytest.importorskip("tomllib")  # Python >= 3.11
from packaging.requirements import Requirement  # noqa: E402 (after the skip)
from packaging.utils import canonicalize_name  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
PROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
DEPENDENCIES = {canonicalize_name(r.name): r for r in map(Requirement, PROJECT["dependencies"])}
EXTRAS: dict[str, list[Requirement]] = {
    name: [Requirement(r) for r in reqs]
    for name, reqs in PROJECT["optional-dependencies"].items()
}


def _pins() -> dict[str, str]:
    pins = {}
    for line in (ROOT / "constraints.txt").read_text(encoding="utf-8").splitlines():
        line = line.split("#")[0].strip()
        if line:
            name, version = line.split("==")
            pins[canonicalize_name(name)] = version.strip()
    return pins


def test_library_dependencies_are_ranges_not_pins() -> None:
    for name, req in DEPENDENCIES.items():
        operators = {spec.operator for spec in req.specifier}
        assert not operators & {"==", "==="}, f"{name} is pinned in pyproject.toml: {req}"
    for name in ("torch", "torch-geometric"):
        assert any(s.operator == ">=" for s in DEPENDENCIES[name].specifier), name


def test_constraints_pin_torch_within_the_ranges() -> None:
    pins = _pins()
    assert pins["torch"] == "2.13.0"  # the CPU build kept on the machines' disks
    # the test tools and the extras' packages (transformers, starlette, ...)
    optional = {canonicalize_name(r.name): r for reqs in EXTRAS.values() for r in reqs}
    for name, version in pins.items():
        req = DEPENDENCIES.get(name, optional.get(name))
        assert req is not None, f"constraints.txt pins {name}, not a dependency or an extra's"
        assert req.specifier.contains(version), (name, version)


def test_make_test_runs_the_pinned_linter_and_type_checker() -> None:
    pins = _pins()
    assert {"ruff", "mypy"} <= set(pins)
    recipe = (ROOT / "Makefile").read_text(encoding="utf-8").split("\ntest:", 1)[1]
    assert "ruff check src tests benchmarks" in recipe and "mypy src" in recipe


def test_one_verb_dependencies_are_extras() -> None:
    for extra, package in (("entity", "rdflib"), ("figures", "matplotlib"),
                           ("embeddings", "wordllama"), ("encoders", "transformers"),
                           ("serve", "starlette"), ("serve", "uvicorn"),
                           ("tensorboard", "tensorboard")):
        assert package not in DEPENDENCIES, f"{package} should be in the {extra!r} extra only"
        assert package in {canonicalize_name(r.name) for r in EXTRAS[extra]}
    (everything,) = EXTRAS["all"]
    assert canonicalize_name(everything.name) == "gfbgcn"
    assert everything.extras == set(EXTRAS) - {"all", "test", "docs"}  # tools, not features


def test_every_optional_import_names_an_extra_that_installs_it() -> None:
    calls = [m for path in sorted((ROOT / "src").rglob("*.py"))
             for m in re.finditer(r'require\(\s*"([\w.]+)",\s*"(\w+)"',
                                  path.read_text(encoding="utf-8"))]
    assert len(calls) >= 2  # entity (rdflib) and figures (matplotlib)
    for call in calls:
        module, extra = call.groups()
        assert extra in EXTRAS, f"require({module!r}, {extra!r}): no such extra"
        installs = {canonicalize_name(r.name) for r in EXTRAS[extra]}
        assert canonicalize_name(module.split(".")[0]) in installs, (module, extra)
