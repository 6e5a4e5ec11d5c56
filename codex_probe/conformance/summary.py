"""What a run that used the fixtures tells: a header of its targets before the tests, a
summary of every check outcome after them, and the outcomes as a JSON Lines file.

A run whose tests never ask for `codex_backend` tells nothing.
"""

from __future__ import annotations

import json
from collections import Counter
from typing import Any

import pytest

from codex_probe.conformance.distribution import is_worker
from codex_probe.conformance.state import ConformanceState, existing_state, state_of
from codex_probe.conformance.target import target_of


def write_header(session: pytest.Session) -> None:
    """The targets, before the tests; under pytest-xdist the main process collects nothing
    and the workers' output is not shown, so the summary begins with them instead."""
    if not any(target_of(item) is not None for item in session.items):
        return
    state = state_of(session.config)
    state.used = True
    if is_worker(session.config):
        return
    reporter = session.config.pluginmanager.get_plugin("terminalreporter")
    if reporter is None:
        return
    for line in header_lines(state):
        reporter.write_line(line)
    state.header_written = True


def header_lines(state: ConformanceState) -> list[str]:
    from codex_probe.harness.codex.schema import schema_hash

    kinds = ", ".join(dict.fromkeys(t.kind for t in state.targets))
    lines = [f"codex-probe conformance: backends {kinds}"]
    for version in dict.fromkeys(t.version for t in state.targets):
        target = next(t for t in state.targets if t.version == version)
        try:
            schema = state.backend(target).schema_dir
            lines.append(f"  codex-cli {version}: schema {schema_hash(schema)} ({schema})")
        except Exception as error:
            lines.append(f"  codex-cli {version}: unavailable ({error})")
    if state.script is not None:
        lines.append(f"  fake fault script: {state.script}")
    if state.profile is not None:
        lines.append(f"  fake profile: {state.profile}")
    where = state.baseline.path or "none"
    lines.append(f"  baseline: {where} ({len(state.baseline.entries)} entries)")
    lines.append(
        f"  lifecycle: {state.lifecycle_examples} sequences per target, "
        f"deadline {state.timeout:g}s per request"
    )
    return lines


def write_summary(terminalreporter: pytest.TerminalReporter) -> None:
    state = existing_state(terminalreporter.config)
    if state is None or not state.used:
        return
    terminalreporter.section("codex-probe conformance")
    head = [] if state.header_written else header_lines(state)
    for line in [*head, *summary_lines(state.results)]:
        terminalreporter.write_line(line)


def summary_lines(results: list[dict[str, Any]]) -> list[str]:
    """The count of each outcome, then one line per check that did not pass."""
    counts = Counter(r["outcome"] for r in results)
    lines = ["checks: " + ", ".join(f"{n} {outcome}" for outcome, n in sorted(counts.items()))]
    for result in results:
        if result["outcome"] != "passed":
            first = (result["message"].strip().splitlines() or [""])[0][:160]
            where = f"{result['check']} [{result['target']}]"
            lines.append(f"  {result['outcome']:<16} {where} {first}")
    return lines


def write_results(config: pytest.Config) -> None:
    """The --codex-results file: one JSON line per recorded outcome."""
    # No state: nothing used the plugin, or configure failed (a usage error) making it.
    state = existing_state(config)
    if is_worker(config):
        return  # the main process gets every outcome and writes them
    if state is not None and state.results_path is not None and state.used:
        state.results_path.write_text(
            "".join(json.dumps(r) + "\n" for r in state.results), encoding="utf-8"
        )
