"""Every registered check is exactly one test of the suites, and every suite test is a check."""

from __future__ import annotations

import importlib
import inspect
import pkgutil
import re
from collections import Counter

import codex_probe.conformance.suites
from codex_probe.conformance.registry import CONFORMANCE_CHECKS, MARKER


def suite_tests() -> list[tuple[str, list[str]]]:
    """(test name, the check ids it is marked with) for every test function of the suites."""
    found = []
    for module_info in pkgutil.iter_modules(codex_probe.conformance.suites.__path__):
        module = importlib.import_module(f"codex_probe.conformance.suites.{module_info.name}")
        for name, function in inspect.getmembers(module, inspect.isfunction):
            if name.startswith("test_") and function.__module__ == module.__name__:
                marks = getattr(function, "pytestmark", [])
                ids = [m.args[0] for m in marks if m.name == MARKER]
                found.append((f"{module_info.name}.{name}", ids))
    return found


def test_every_suite_test_is_marked_with_exactly_one_registered_check() -> None:
    tests = suite_tests()
    assert len(tests) > 20
    for name, ids in tests:
        assert len(ids) == 1 and ids[0] in CONFORMANCE_CHECKS, (name, ids)


def test_every_registered_check_has_exactly_one_test() -> None:
    counts = Counter(ids[0] for _, ids in suite_tests() if ids)
    assert {check: counts[check] for check in CONFORMANCE_CHECKS} == dict.fromkeys(
        CONFORMANCE_CHECKS, 1
    )


def test_check_ids_are_stable_shaped_and_name_what_they_protect() -> None:
    for check in CONFORMANCE_CHECKS.values():
        assert re.fullmatch(r"CONF-[A-Z]+(-[A-Z]+)*-\d{3}", check.id), check.id
        assert check.title and check.protects, check.id
