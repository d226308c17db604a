"""The package's structure: no import cycle, dependencies run one way, functions stay short
enough to read, and modules past :data:`LONG_MODULE_LINES` are listed as a warning (a module's
size follows its meaning, not a cap).  Read from the source with ``ast``; nothing is imported."""

from __future__ import annotations

import ast
import warnings
from collections import defaultdict
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[1] / "src"
#: Packages nothing else may depend on from below: ``core`` and ``nn`` serve the task packages.
# gfbgcn._version is the one number every floor may read (run records carry it); it imports nothing.
FOUNDATIONS = ("gfbgcn._version", "gfbgcn.core", "gfbgcn.nn")
#: The command line sits on top: no library module imports it.
TOP = "gfbgcn.cli"
#: The reproduction wing stands on the library; only the command line imports it.
REPRODUCTION = "gfbgcn.reproduce"
#: Every package on its floor, lowest first: a module imports only its own package and the
#: floors below it (packages that share a floor stand side by side and import none of each
#: other).  ``gfbgcn`` itself is the public API over the task packages.
FLOORS = (
    ("gfbgcn._version",),
    ("gfbgcn.core",),
    ("gfbgcn.nn",),
    ("gfbgcn.text", "gfbgcn.entity", "gfbgcn.graph_classification"),
    ("gfbgcn",),
    ("gfbgcn.reproduce",),
    ("gfbgcn.cli",),
    ("gfbgcn.__main__",),
)
#: Modules of the Python standard library only the command line may import.
COMMAND_LINE_ONLY = ("argparse",)
#: Modules longer than this are listed in a warning, to be looked at: one concept may need more.
LONG_MODULE_LINES = 600
MAX_FUNCTION_LINES = 60
#: The text sub-packages from the bottom up: each imports only those before it (``dataset``:
#: the graph without training, over the estimator's settings).
TEXT_LADDER = ("params", "mixture", "corpus", "tokenize", "encoder", "graph", "linear", "train",
               "predict", "search", "estimator", "dataset", "serve")


def _modules() -> dict[str, Path]:
    mods = {}
    for path in SRC.rglob("*.py"):
        parts = list(path.relative_to(SRC).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        mods[".".join(parts)] = path
    return mods


def _imports(module: str, path: Path, known: dict[str, Path]) -> set[str]:
    """The gfbgcn modules ``module`` imports, at any depth of its code."""
    found = set()
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                base = ".".join(package.split(".")[: len(package.split(".")) - node.level + 1]
                                + ([base] if base else []))
            for alias in node.names:
                found.add(f"{base}.{alias.name}" if f"{base}.{alias.name}" in known else base)
        elif isinstance(node, ast.Import):
            found.update(a.name for a in node.names)
    return {m for m in found if m in known and m != module}


def import_graph() -> dict[str, set[str]]:
    known = _modules()
    return {m: _imports(m, p, known) for m, p in known.items()}


def _outside_imports(path: Path) -> set[str]:
    """The top-level names of the modules outside gfbgcn that ``path`` imports, at any depth
    (``argparse``, ``torch``)."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and not node.level and node.module:
            found.add(node.module.split(".")[0])
        elif isinstance(node, ast.Import):
            found.update(a.name.split(".")[0] for a in node.names)
    return found - {"gfbgcn"}


def floor_of(module: str, floors: tuple[tuple[str, ...], ...]) -> tuple[int, str] | None:
    """``(floor, package)`` of ``module``: its longest package in ``floors`` (``gfbgcn``
    itself holds only the module ``gfbgcn``), or ``None`` where no floor has it."""
    best = None
    for level, packages in enumerate(floors):
        for package in packages:
            inside = module == package or (package != "gfbgcn" and _in(module, package))
            if inside and (best is None or len(package) > len(best[1])):
                best = (level, package)
    return best


def floor_violations(graph: dict[str, set[str]], floors: tuple[tuple[str, ...], ...]
                     ) -> list[tuple[str, str]]:
    """Imports that run up a floor or across to a neighbour on the same floor, and modules
    that no floor holds (paired with ``"no floor"``)."""
    bad = [(m, "no floor") for m in graph if floor_of(m, floors) is None]
    for module, targets in graph.items():
        here = floor_of(module, floors)
        for target in targets:
            there = floor_of(target, floors)
            if here is None or there is None:
                continue
            if there[0] > here[0] or (there[0] == here[0] and there[1] != here[1]):
                bad.append((module, target))
    return sorted(bad)


def forbidden_imports(imports: dict[str, set[str]], names: tuple[str, ...], allowed: str
                      ) -> list[tuple[str, str]]:
    """``(module, name)`` for every module outside package ``allowed`` that imports one of
    ``names`` (modules outside gfbgcn)."""
    return sorted((m, n) for m, found in imports.items() for n in found
                  if n in names and not _in(m, allowed))


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for root in graph:
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def _in(module: str, package: str) -> bool:
    return module == package or module.startswith(package + ".")


def test_cycle_finder_finds_a_cycle() -> None:
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert cycles({"a": {"b"}, "b": set()}) == []


def test_no_import_cycle() -> None:
    assert cycles(import_graph()) == []


def test_floor_checker_finds_upward_sideways_and_homeless_imports() -> None:
    floors = (("p.low",), ("p.a", "p.b"), ("p.top",))
    graph = {"p.low": set(), "p.a.x": {"p.low", "p.a.y"}, "p.a.y": set(),
             "p.top": {"p.a.x", "p.b"}, "p.b": set()}
    assert floor_violations(graph, floors) == []
    graph["p.low"] = {"p.a.y"}  # up a floor
    graph["p.b"] = {"p.a.x"}  # across to a neighbour
    graph["p.new"] = set()  # on no floor
    assert floor_violations(graph, floors) == [("p.b", "p.a.x"), ("p.low", "p.a.y"),
                                               ("p.new", "no floor")]


def test_every_module_imports_only_its_package_and_the_floors_below() -> None:
    """core stands on ``_version`` alone, nn on core, the task packages on both and not on each
    other, the reproduction wing on the library, the command line on everything."""
    assert floor_violations(import_graph(), FLOORS) == []


def test_forbidden_import_finder() -> None:
    imports = {"p.cli.verb": {"argparse", "torch"}, "p.core.x": {"argparse"}, "p.nn": {"torch"}}
    assert forbidden_imports(imports, ("argparse",), "p.cli") == [("p.core.x", "argparse")]


def test_only_the_command_line_imports_argparse() -> None:
    """Flags, their types and ``Namespace`` objects stay in ``cli``: the library and the
    reproduction wing take plain values."""
    imports = {m: _outside_imports(p) for m, p in _modules().items()}
    assert imports["gfbgcn.cli"] >= {"argparse"}  # the finder sees what is there
    assert forbidden_imports(imports, COMMAND_LINE_ONLY, TOP) == []


def test_foundations_import_no_task_package() -> None:
    upward = [(m, t) for m, targets in import_graph().items() for t in targets
              if any(_in(m, f) for f in FOUNDATIONS)
              and not any(_in(t, f) for f in FOUNDATIONS) and t != "gfbgcn"]
    assert upward == []


def test_only_the_command_line_imports_the_command_line() -> None:
    callers = [(m, t) for m, targets in import_graph().items() for t in targets
               if _in(t, TOP) and not _in(m, TOP) and m != "gfbgcn.__main__"]
    assert callers == []


def test_the_library_never_imports_the_reproduction_wing() -> None:
    callers = [(m, t) for m, targets in import_graph().items() for t in targets
               if _in(t, REPRODUCTION) and not _in(m, REPRODUCTION) and not _in(m, TOP)]
    assert callers == []


def test_text_subpackages_depend_one_way() -> None:
    """:data:`TEXT_LADDER`, the linear baseline between the graph and training: never back."""
    rank = {f"gfbgcn.text.{name}": i for i, name in enumerate(TEXT_LADDER)}

    def rank_of(module: str) -> int | None:
        return next((r for p, r in rank.items() if _in(module, p)), None)

    back = [(m, t) for m, targets in import_graph().items() for t in targets
            if rank_of(m) is not None and rank_of(t) is not None and rank_of(t) > rank_of(m)]
    assert back == []
    homeless = [m for m in _modules() if _in(m, "gfbgcn.text") and m != "gfbgcn.text"
                and rank_of(m) is None]
    assert homeless == []  # every text module stands on the ladder


def _sizes(modules: dict[str, Path] | None = None
           ) -> tuple[list[tuple[str, int]], list[tuple[str, int]]]:
    """``(long modules, long functions)`` of ``modules`` (default: the package's), each with
    its number of lines."""
    long_modules, long_functions = [], []
    for module, path in (_modules() if modules is None else modules).items():
        source = path.read_text(encoding="utf-8")
        lines = source.count("\n")
        if lines > LONG_MODULE_LINES:
            long_modules.append((module, lines))
        for node in ast.walk(ast.parse(source)):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                length = node.end_lineno - node.lineno + 1
                if length > MAX_FUNCTION_LINES:
                    long_functions.append((f"{module}.{node.name}", length))
    return long_modules, long_functions


def test_long_modules_are_listed(tmp_path: Path) -> None:
    """Not a limit: a warning naming the modules past :data:`LONG_MODULE_LINES` lines, so that
    a review looks at whether one holds more than one concept."""
    (tmp_path / "at.py").write_text("x = 1\n" * LONG_MODULE_LINES)
    (tmp_path / "past.py").write_text("x = 1\n" * (LONG_MODULE_LINES + 1))
    listed = _sizes({"at": tmp_path / "at.py", "past": tmp_path / "past.py"})[0]
    assert listed == [("past", LONG_MODULE_LINES + 1)]
    long_modules = _sizes()[0]
    if long_modules:
        warnings.warn(f"modules over {LONG_MODULE_LINES} lines: {sorted(long_modules)}",
                      stacklevel=1)


def test_functions_are_short() -> None:
    assert _sizes()[1] == []


@pytest.mark.parametrize("package", sorted(m for m, p in _modules().items()
                                            if p.name == "__init__.py"))
def test_packages_stay_browsable(package: str) -> None:
    """Past ~15 modules a package gets sub-packages (every package, top-level ones too)."""
    children = defaultdict(int)
    for module in _modules():
        if module.startswith(package + ".") and module.count(".") == package.count(".") + 1:
            children[package] += 1
    assert children[package] <= 16


def test_the_train_verb_reaches_at_most_three_text_modules() -> None:
    """``gfbgcn train`` parses, calls the estimator and prints: the text work is the
    library's, so the verb imports few of its modules."""
    path = SRC / "gfbgcn" / "cli" / "train.py"
    text_modules = {node.module for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
                    if isinstance(node, ast.ImportFrom) and node.module
                    and _in(node.module, "gfbgcn.text")}
    assert len(text_modules) <= 3, sorted(text_modules)
