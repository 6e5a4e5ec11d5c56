"""A bundle's reproduce.py: the modules of codex_probe/probes/releases/repro/script/ joined into one
file.

The script must be one file of standard-library Python (it is run with `python3 -I -S`,
where no sibling module can be imported), yet its parts are several ideas: the mock
provider, the app-server client, the replay, the reading, the report. They are kept as
modules here (type-checked and tested one by one) and joined: main.py's docstring opens
the file, every module's standard-library imports are merged, each module's body follows
under its docstring as a comment, and the imports between them are dropped (one namespace
holds every name, so no two modules may define the same one).
"""

from __future__ import annotations

import ast
import sys
from functools import cache
from pathlib import Path

SCRIPT_DIR = Path(__file__).resolve().parent / "script"
# Dependency order: a module comes after every module whose names it uses.
MODULES = (
    "outcomes",
    "bundled",
    "bundle_files",
    "mock_provider",
    "app_server",
    "sealing",
    "replay",
    "main",
)
PACKAGE = "codex_probe.probes.releases.repro.script"


class AssemblyError(ValueError):
    """The script's modules cannot be joined into one file (the message says why)."""


@cache
def script_text() -> str:
    """The text of reproduce.py (the same for every bundle)."""
    plain: set[str] = set()
    named: dict[str, set[str]] = {}
    bodies: list[str] = []
    defined: dict[str, str] = {}
    opening = ""
    for module in MODULES:
        source = (SCRIPT_DIR / f"{module}.py").read_text(encoding="utf-8")
        tree = ast.parse(source)
        docstring = ast.get_docstring(tree, clean=False) or ""
        if module == "main":
            opening = docstring
        dropped: set[int] = set()
        for node in tree.body:
            if isinstance(node, ast.Expr) and node is tree.body[0] and docstring:
                dropped.update(_lines(node))
            elif isinstance(node, ast.Import | ast.ImportFrom):
                _collect(node, plain, named, module)
                dropped.update(_lines(node))
            else:
                for name in _names(node):
                    if name in defined:
                        raise AssemblyError(f"{name} is defined in {defined[name]} and {module}")
                    defined[name] = module
        kept = [line for number, line in enumerate(source.splitlines(), 1) if number not in dropped]
        body = "\n".join(kept).strip("\n")
        if body.startswith("#!"):
            body = body.split("\n", 1)[1].lstrip("\n")
        comment = "" if module == "main" else _as_comment(docstring)
        rule = f"# ----- {module}.py "
        bodies.append(rule + "-" * (88 - len(rule)) + f"\n{comment}{body}\n")
    imports = sorted(f"import {name}" for name in plain)
    imports += sorted(
        f"from {mod} import {', '.join(sorted(names))}" for mod, names in named.items()
    )
    return (
        f'#!/usr/bin/env python3\n"""{opening}"""\n\nfrom __future__ import annotations\n\n'
        + "\n".join(imports)
        + "\n\n\n"
        + "\n\n".join(bodies)
    )


def _collect(
    node: ast.Import | ast.ImportFrom, plain: set[str], named: dict[str, set[str]], module: str
) -> None:
    if isinstance(node, ast.Import):
        for alias in node.names:
            _standard(alias.name, module)
            plain.add(alias.name if alias.asname is None else f"{alias.name} as {alias.asname}")
        return
    source = node.module or ""
    if source == "__future__" or source.startswith(PACKAGE):
        return
    _standard(source, module)
    for alias in node.names:
        spelled = alias.name if alias.asname is None else f"{alias.name} as {alias.asname}"
        named.setdefault(source, set()).add(spelled)


def _standard(name: str, module: str) -> None:
    if name.split(".")[0] not in sys.stdlib_module_names:
        raise AssemblyError(f"{module}.py imports {name}, which is not in the standard library")


def _lines(node: ast.stmt) -> range:
    return range(node.lineno, (node.end_lineno or node.lineno) + 1)


def _names(node: ast.stmt) -> list[str]:
    if isinstance(node, ast.FunctionDef | ast.ClassDef):
        return [node.name]
    if isinstance(node, ast.Assign):
        return [
            n.id for target in node.targets for n in ast.walk(target) if isinstance(n, ast.Name)
        ]
    if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
        return [node.target.id]
    return []


def _as_comment(docstring: str) -> str:
    return "".join(f"# {line}".rstrip() + "\n" for line in docstring.strip().splitlines()) + "\n\n"
