"""Every registered check is exactly one test of the suites, and every suite test is a check."""

from __future__ import annotations

import importlib
import inspect
import pkgutil
import re
from collections import Counter
from typing import Any

import pytest

import codex_probe.conformance.suites
from codex_probe.conformance.registry import (
    MARKER,
    RETIRED,
    ConformanceCheck,
    conformance_checks,
    declare,
)


def marked_ids(function: Any) -> list[str]:
    """The check ids a test function is marked with: on itself, or on each of its params."""
    ids = []
    for mark in getattr(function, "pytestmark", []):
        if mark.name == MARKER:
            ids += list(mark.args)
        if mark.name == "parametrize":
            for param in mark.args[1]:
                ids += [m.args[0] for m in getattr(param, "marks", ()) if m.name == MARKER]
    return ids


def suite_tests() -> list[tuple[str, list[str]]]:
    """(test name, the check ids it is marked with) for every test function of the suites."""
    found = []
    for module_info in pkgutil.iter_modules(codex_probe.conformance.suites.__path__):
        module = importlib.import_module(f"codex_probe.conformance.suites.{module_info.name}")
        for name, function in inspect.getmembers(module, inspect.isfunction):
            if name.startswith("test_") and function.__module__ == module.__name__:
                found.append((f"{module_info.name}.{name}", marked_ids(function)))
    return found


def test_every_suite_test_is_marked_with_declared_checks() -> None:
    tests = suite_tests()
    declared = conformance_checks()
    assert len(tests) > 20
    for name, ids in tests:
        assert ids and set(ids) <= set(declared), (name, ids)


def test_every_declared_check_is_marked_on_exactly_one_test_or_param() -> None:
    counts = Counter(check for _, ids in suite_tests() for check in ids)
    declared = conformance_checks()
    assert {check: counts[check] for check in declared} == dict.fromkeys(declared, 1)


def test_a_check_id_is_declared_once_and_a_retired_id_never_again() -> None:
    declared = conformance_checks()
    some = next(iter(declared.values()))
    with pytest.raises(ValueError, match="declared twice"):
        declare(ConformanceCheck(some.id, "another title", some.protects))
    retired = next(iter(RETIRED))
    with pytest.raises(ValueError, match="is retired"):
        declare(ConformanceCheck(retired, "t", "p"))


def test_check_ids_are_stable_shaped_and_name_what_they_protect() -> None:
    for check in conformance_checks().values():
        assert re.fullmatch(r"CONF-[A-Z]+(-[A-Z]+)*-\d{3}", check.id), check.id
        assert check.title and check.protects, check.id
