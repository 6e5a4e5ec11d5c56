"""The house keeps its own rules, read from the source: floors, no cycles, one of each idea.

Every floor is a package under the one name `codex_probe`. Lowest first
(docs/ARCHITECTURE.md): harness, fake_appserver, rig, then probes and conformance side by
side, reporting, and cli on top. A floor imports only floors below it; tests/, bench/ and
tools/ may import anything and nothing imports them.
"""

from __future__ import annotations

import ast
import functools
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

# What each floor may import of ours (besides itself).
MAY_IMPORT: dict[str, set[str]] = {
    "harness": set(),
    "fake_appserver": {"harness"},
    "rig": {"harness", "fake_appserver"},
    "probes": {"harness", "fake_appserver", "rig"},
    "conformance": {"harness", "fake_appserver", "rig"},
    "reporting": {"harness", "fake_appserver", "rig", "probes", "conformance"},
    "cli": {"harness", "fake_appserver", "rig", "probes", "conformance", "reporting"},
}
SHIPPED = tuple(MAY_IMPORT)
NAMESPACE = "codex_probe"
# Folders a person runs or reads, outside the shipped package: they may import anything.
OUTSIDE = ("tests", "bench", "tools")
OURS = (NAMESPACE, *SHIPPED, *OUTSIDE)


def floor(module: str) -> str:
    """The floor of a module: its package under codex_probe, or tests / bench / tools. The
    namespace package itself holds no code (the fake's launcher finds the folders by it),
    so any floor may import it."""
    parts = module.split(".")
    if parts[0] != NAMESPACE or len(parts) == 1:
        return parts[0]
    return parts[1]


@functools.cache
def python_files() -> tuple[Path, ...]:
    listed = subprocess.run(
        ["git", "ls-files", "*.py"], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout.split()
    return tuple(ROOT / name for name in listed)


@functools.cache
def parsed(path: Path) -> ast.Module:
    """The file's syntax tree: each file is parsed once for all of these tests."""
    return ast.parse(path.read_text(encoding="utf-8"), str(path))


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def imported_modules(path: Path) -> Iterator[str]:
    """Every module of ours that `path` imports, at module level or inside a function."""
    tree = parsed(path)
    package = module_name(path).rsplit(".", 1)[0]
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                base = ".".join(package.split(".")[: len(package.split(".")) - node.level + 1])
                base = f"{base}.{node.module}" if node.module else base
            names = [base] + [f"{base}.{alias.name}" for alias in node.names]
        else:
            continue
        yield from (name for name in names if name.split(".")[0] in OURS)


def import_graph() -> dict[str, set[str]]:
    files = {module_name(path): path for path in python_files()}
    graph: dict[str, set[str]] = {}
    for name, path in files.items():
        # `from pkg import module` names a module; `from pkg.module import name` does not.
        graph[name] = {target for target in imported_modules(path) if target in files} - {name}
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    sys.setrecursionlimit(max(10_000, sys.getrecursionlimit()))

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in graph.get(node, ()):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
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

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def definitions(kind: type[ast.FunctionDef | ast.ClassDef], name_of: str) -> list[str]:
    """Where a function or class called `name_of` is defined, as path:line."""
    places = []
    for path in python_files():
        for node in ast.walk(parsed(path)):
            if isinstance(node, kind) and node.name == name_of:
                places.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    return places


def test_no_module_imports_one_that_imports_it_back() -> None:
    assert cycles(import_graph()) == []


@pytest.mark.parametrize("package", SHIPPED)
def test_a_package_imports_only_the_floors_below_it(package: str) -> None:
    graph = import_graph()
    assert any(floor(source) == package for source in graph), f"no module of {package}"
    allowed = MAY_IMPORT[package] | {package, NAMESPACE}
    upward = sorted(
        f"{source} -> {target}"
        for source, targets in graph.items()
        if floor(source) == package
        for target in targets
        if floor(target) not in allowed
    )
    assert upward == []


@pytest.mark.parametrize("outside", OUTSIDE)
def test_nothing_shipped_imports_the_tests_the_benches_or_the_tools(outside: str) -> None:
    # The tests may import a tool (to test it); the package never does.
    graph = import_graph()
    assert any(floor(source) == outside for source in graph), f"no module of {outside}"
    importers = sorted(
        f"{source} -> {target}"
        for source, targets in graph.items()
        if floor(source) in SHIPPED
        for target in targets
        if floor(target) == outside
    )
    assert importers == []


def test_conformance_and_probes_never_import_each_other() -> None:
    graph = import_graph()
    crossing = sorted(
        f"{source} -> {target}"
        for source, targets in graph.items()
        for target in targets
        if {floor(source), floor(target)} == {"conformance", "probes"}
    )
    assert crossing == []


def test_every_module_has_one_path_with_no_link_in_the_checkout() -> None:
    # A link makes a module's import name and its file two paths: a tool mapping imports to
    # files sees links, not rooms, and a checkout without links breaks.
    tracked = subprocess.run(
        ["git", "ls-files", "-s"], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout.splitlines()
    links = [line.split("\t", 1)[1] for line in tracked if line.startswith("120000")]
    assert links == []
    folders = [p.name for p in (ROOT / NAMESPACE).iterdir() if (p / "__init__.py").is_file()]
    assert sorted(folders) == sorted(SHIPPED)


def test_every_import_of_ours_goes_through_the_one_namespace() -> None:
    # A bare `import harness` works from a checkout, never from the installed wheel.
    bare = sorted(
        f"{path.relative_to(ROOT)}: {name}"
        for path in python_files()
        for name in imported_modules(path)
        if name.split(".")[0] in SHIPPED
    )
    assert bare == []


def test_turn_input_is_built_in_one_place_the_drivers() -> None:
    found = definitions(ast.FunctionDef, "text_input")
    assert [place.split(":")[0] for place in found] == ["codex_probe/harness/driver/params.py"]


# Names two modules once each gave their own class (issue 34: two ideas renamed apart, or
# one idea merged); the dataset's published types begin with `Published`.
ONCE = ("ChangePoint", "Upstream", "WatchedIssue", "Change", "State", "Cell", "FindingEntry")


@pytest.mark.parametrize("name", ONCE)
def test_a_class_of_these_names_is_defined_once_in_the_product(name: str) -> None:
    found = [
        place
        for place in definitions(ast.ClassDef, name)
        if floor(module_name(ROOT / place.split(":")[0])) in SHIPPED
    ]
    assert len(found) <= 1, found


def test_one_class_drives_an_app_server_through_a_scenario() -> None:
    # A scenario's processes are opened through a backend in one place only.
    openers = []
    for path in python_files():
        if floor(module_name(path)) not in SHIPPED:
            continue
        for node in ast.walk(parsed(path)):
            if isinstance(node, ast.ClassDef):
                calls = [
                    call
                    for call in ast.walk(node)
                    if isinstance(call, ast.Call)
                    and isinstance(call.func, ast.Attribute)
                    and call.func.attr == "open"
                    and isinstance(call.func.value, ast.Attribute)
                    and call.func.value.attr == "backend"
                ]
                if calls:
                    openers.append(f"{path.relative_to(ROOT)}:{node.name}")
    assert openers == ["codex_probe/rig/session.py:Session"]


def test_an_assumption_id_is_in_no_product_file_but_its_entry_and_the_watch_list() -> None:
    from codex_probe.probes.domain.assumptions import ASSUMPTIONS

    registry = ROOT / NAMESPACE / "probes" / "domain" / "assumptions.py"
    # The watch list decides each upstream issue by findings: it names their ids.
    watch_list = ROOT / NAMESPACE / "probes" / "domain" / "watch.py"
    product = [
        path
        for path in python_files()
        if floor(module_name(path)) in SHIPPED and path not in (registry, watch_list)
    ]
    elsewhere = sorted(
        f"{assumption.id}: {path.relative_to(ROOT)}"
        for assumption in ASSUMPTIONS
        for path in product
        if assumption.id in path.read_text(encoding="utf-8")
    )
    assert elsewhere == []


def test_the_watch_list_reads_only_findings_of_the_registry() -> None:
    from codex_probe.probes.domain.assumptions import BY_ID
    from codex_probe.probes.domain.watch import WATCH_FINDINGS

    assert [finding for finding in WATCH_FINDINGS if finding not in BY_ID] == []


def callers(name: str) -> set[str]:
    """The product files (under the namespace) that call a function or class `name`."""
    found = set()
    for path in python_files():
        if floor(module_name(path)) not in SHIPPED:
            continue
        for node in ast.walk(parsed(path)):
            if isinstance(node, ast.Call):
                called = node.func
                named = (
                    called.attr if isinstance(called, ast.Attribute) else getattr(called, "id", "")
                )
                if named == name:
                    found.add(str(path.relative_to(ROOT)))
    return found


WRITERS = "codex_probe/reporting/writers/"


def test_a_run_reaches_its_bundles_and_allure_results_only_through_the_writers() -> None:
    # The writers are listed once per command; a finding is bundled and its result written by
    # one writer each, never by hand beside them (three listeners each bundled before).
    assert {c for c in callers("bundle_in_report") if not c.startswith(WRITERS)} == set()
    assert {c for c in callers("write_finding_result") if not c.startswith(WRITERS)} == set()


def test_a_command_lists_its_writers_once() -> None:
    listed = sorted(callers("Writers"))
    assert all(c.startswith("codex_probe/cli/commands/") for c in listed if "sweep" not in c)
    for path in listed:
        calls = [
            node
            for node in ast.walk(parsed(ROOT / path))
            if isinstance(node, ast.Call) and getattr(node.func, "id", "") == "Writers"
        ]
        assert len(calls) == 1, path


def test_one_function_answers_which_profile_a_release_gets() -> None:
    # fake_appserver/profile.profile_for; the checked-in file is looked up nowhere else.
    assert callers("checked_in_path") == {"codex_probe/fake_appserver/profile.py"}
    assert len(definitions(ast.FunctionDef, "profile_for")) == 1
