"""The fake's modules depend one way, and the fake process loads little of the harness."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

from codex_probe import fake_appserver

PACKAGE = Path(fake_appserver.__file__).parent


def fake_imports(path: Path) -> set[str]:
    """The fake_appserver modules a file imports anywhere (also under TYPE_CHECKING)."""
    imported: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom):
            # A relative import (level 1) is from the package itself.
            base = "codex_probe.fake_appserver" if node.level else None
            module = ".".join(filter(None, [base, node.module]))
            names = [module] + [f"{module}.{alias.name}" for alias in node.names]
        elif isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        else:
            continue
        for name in names:
            package, _, module_name = name.removeprefix("codex_probe.").partition(".")
            if package == "fake_appserver" and (PACKAGE / f"{module_name}.py").is_file():
                imported.add(module_name)
    return imported


def cycle_through(start: str, graph: dict[str, set[str]]) -> list[str] | None:
    """A path of imports from `start` back to itself, if there is one."""
    paths = [[start]]
    seen: set[str] = set()
    while paths:
        path = paths.pop()
        for imported in sorted(graph.get(path[-1], set())):
            if imported == start:
                return [*path, start]
            if imported not in seen:
                seen.add(imported)
                paths.append([*path, imported])
    return None


def test_no_module_of_the_fake_imports_one_that_imports_it_back() -> None:
    graph = {path.stem: fake_imports(path) - {path.stem} for path in sorted(PACKAGE.glob("*.py"))}
    assert graph["server"] >= {"turns"}, "the test no longer reads the server's imports"
    cycles = [cycle for name in graph if (cycle := cycle_through(name, graph))]
    assert cycles == []


def test_the_fake_loads_only_the_framing_versions_file_names_and_json_types_of_the_harness() -> (
    None
):
    listed = subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys, codex_probe.fake_appserver.server; "
            "print(*sorted(m for m in sys.modules if m.startswith('codex_probe.harness')))",
        ],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    assert listed.stdout.split() == [
        "codex_probe.harness",
        "codex_probe.harness.codex",
        "codex_probe.harness.codex.versions",
        # A profile's file name is a version: built by files.inside (standard library only).
        "codex_probe.harness.files",
        # A request's JSON types, named as the surface names them (standard library only).
        "codex_probe.harness.json_types",
        "codex_probe.harness.jsonrpc",
        "codex_probe.harness.jsonrpc.framing",
    ]


def loaded_by(code: str) -> set[str]:
    """The top-level modules a fresh interpreter has loaded after running `code`."""
    listed = subprocess.run(
        [sys.executable, "-c", f"import sys; {code}; print(*sorted(sys.modules))"],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    return {name.split(".")[0] for name in listed.stdout.split()}


def test_the_fake_answers_initialize_before_it_loads_asyncio() -> None:
    # cli.main answers the first request (first_request.py) before importing the server.
    assert "asyncio" not in loaded_by(
        "import codex_probe.fake_appserver.cli, codex_probe.fake_appserver.first_request"
    )


def test_no_part_of_the_fake_loads_an_http_library() -> None:
    modules = loaded_by("import codex_probe.fake_appserver.cli, codex_probe.fake_appserver.server")
    assert not modules & {"aiohttp", "http", "urllib3", "requests", "httpx"}
