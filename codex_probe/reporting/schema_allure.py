"""One Allure result per driver method of a schema diff: passed when its shape held.

A method whose params or response changed (or that appeared or went) fails with a
message starting "schema drift:", which the report's categories file under "schema
drift between versions"; the text and the full JSON of its changes are attached.
"""

from __future__ import annotations

import json
from pathlib import Path

from codex_probe.reporting.allure_files import AllureResult, Attachment, Status, write_result
from codex_probe.reporting.categories import SCHEMA_DRIFT_PREFIX
from codex_probe.reporting.schema_diff import MethodDiff, SchemaDiff
from codex_probe.reporting.schema_diff_text import method_headline, part_lines

EPIC = "schema drift"


def write_schema_results(diff: SchemaDiff, results_dir: Path) -> list[Path]:
    return [write_result(results_dir, _result(method, diff)) for method in diff.priority]


def _result(method: MethodDiff, diff: SchemaDiff) -> AllureResult:
    headline = method_headline(method, diff)
    details = [headline]
    for name, part in (("params", method.params), ("response", method.response)):
        details += ["  " + line for line in part_lines(name, part)]
    status: Status = "passed"
    message = ""
    if method.status in ("changed", "added", "removed"):
        status = "failed"
        counts = "; ".join(
            f"{name} " + ", ".join(f"{n} {kind}" for kind, n in part.counts().items())
            for name, part in (("params", method.params), ("response", method.response))
            if part.changes
        )
        message = f"{SCHEMA_DRIFT_PREFIX} {headline}" + (f" ({counts})" if counts else "")
    elif method.status == "absent":
        status, message = "skipped", f"{method.method} is in neither version"
    versions = f"{diff.old_version} -> {diff.new_version}"
    return AllureResult(
        name=f"{method.method} keeps its shape from {diff.old_version} to {diff.new_version}",
        full_name=f"codex-probe.schema-diff#{method.kind}:{method.method}",
        status=status,
        message=message,
        description=f"The {method.kind} `{method.method}`, compared structurally between the "
        f"schemas codex {diff.old_version} and {diff.new_version} generate.",
        labels=[
            ("epic", EPIC),
            ("feature", method.method),
            ("story", method.kind),
            ("suite", "schema drift"),
            ("severity", "critical" if method.kind == "client request" else "normal"),
        ],
        parameters=[("codex versions", versions)],
        attachments=[
            Attachment("changes.txt", "\n".join(details) + "\n"),
            Attachment(
                "changes.json", json.dumps(method.to_json(), indent=2), "application/json", "json"
            ),
        ],
    )
