"""How the Allure report sorts failures, and the metadata files beside the results.

A finding tells what kind of failure it is by the first words of its message (the
probes use exactly these prefixes). allure-pytest puts the exception's type in front
(`Failed: `, `AssertionError: `, `codex_probe.harness.jsonrpc.errors.RequestTimeout: `), so every
pattern allows one such word before the prefix. The patterns match the whole message,
which is what Allure 2 (categories.json, Java `matches`) needs; Allure 3 (the same
rules in its config, JavaScript `test`) accepts them as they are.
"""

from __future__ import annotations

import json
import os
import platform
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from codex_probe.probes.domain.findings import BROKEN_PREFIX, CHANGED_PREFIX, FIDELITY_PREFIX

# The probes' own prefixes live with their findings; schema drift is ours.
SCHEMA_DRIFT_PREFIX = "schema drift:"


@dataclass(frozen=True)
class Category:
    name: str
    statuses: tuple[str, ...]
    message_prefix: str | None  # None: any message

    @property
    def message_regex(self) -> str:
        if self.message_prefix is None:
            return r"[\s\S]*"
        return r"^(?:[\w.]+: )?" + re.escape(self.message_prefix) + r"[\s\S]*"

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "matchedStatuses": list(self.statuses),
            "messageRegex": self.message_regex,
        }


# First match wins. A `broken` result is an exception outside any assertion: whatever
# its message, the harness (not codex) failed to give a verdict. An informative change is
# `unknown` (reporting/finding_results.py says why): its category says what it is.
CATEGORIES: tuple[Category, ...] = (
    Category("changed upstream: gated (required)", ("failed",), CHANGED_PREFIX),
    Category("changed upstream: informative (not gated)", ("unknown",), CHANGED_PREFIX),
    Category("fake diverges from real", ("failed",), FIDELITY_PREFIX),
    Category("schema drift between versions", ("failed",), SCHEMA_DRIFT_PREFIX),
    Category("harness broken", ("broken", "failed"), BROKEN_PREFIX),
    Category("harness broken", ("broken",), None),
)


def category_of(status: str, message: str) -> str | None:
    """The category a result of this status and message falls into (as Allure sorts it)."""
    for category in CATEGORIES:
        if status in category.statuses and re.fullmatch(category.message_regex, message):
            return category.name
    return None


def categories_json() -> list[dict[str, Any]]:
    return [category.to_json() for category in CATEGORIES]


def write_results_metadata(
    results_dir: Path, environment: Mapping[str, str], executor: Mapping[str, Any] | None = None
) -> None:
    """categories.json, environment.properties and (on CI) executor.json, beside the results."""
    results_dir.mkdir(parents=True, exist_ok=True)
    (results_dir / "categories.json").write_text(json.dumps(categories_json(), indent=2) + "\n")
    (results_dir / "environment.properties").write_text(_properties(environment))
    if executor is None:
        executor = ci_executor(os.environ)
    if executor:
        (results_dir / "executor.json").write_text(json.dumps(executor, indent=2) + "\n")


def report_environment(versions: list[str], tool: str, allure_version: str) -> dict[str, str]:
    return {
        "codex.versions": ", ".join(versions) or "(no verdict.json)",
        "tool": tool,
        "allure": allure_version,
        "python": platform.python_version(),
        "platform": f"{platform.system()} {platform.machine()}",
    }


def ci_executor(env: Mapping[str, str]) -> dict[str, Any]:
    """Which CI run made the results (GitHub Actions only), for the report's header."""
    if env.get("GITHUB_ACTIONS") != "true":
        return {}
    server = env.get("GITHUB_SERVER_URL", "https://github.com")
    repository, run_id = env.get("GITHUB_REPOSITORY", ""), env.get("GITHUB_RUN_ID", "")
    workflow, number = env.get("GITHUB_WORKFLOW", "workflow"), env.get("GITHUB_RUN_NUMBER", "")
    return {
        "name": "GitHub Actions",
        "type": "github",
        "buildName": f"{workflow} #{number}",
        "buildUrl": f"{server}/{repository}/actions/runs/{run_id}",
        "reportName": "codex-probe",
    }


def _properties(values: Mapping[str, str]) -> str:
    # Java properties, one key per line; our keys are plain words, values may hold anything.
    def escape(text: str) -> str:
        return text.replace("\\", "\\\\").replace("\n", "\\n")

    return "".join(f"{key}={escape(value)}\n" for key, value in values.items())
