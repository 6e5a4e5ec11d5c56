"""Write Allure result files directly, for results that come from no pytest run.

The format is allure-pytest's (`<uuid>-result.json` plus `<uuid>-attachment.<ext>`
files beside it), so the same `codex-probe report` turns them into HTML.
"""

from __future__ import annotations

import hashlib
import json
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

Status = Literal["passed", "failed", "broken", "skipped", "unknown"]


@dataclass(frozen=True)
class Attachment:
    name: str
    content: str
    mime: str = "text/plain"
    extension: str = "txt"


@dataclass(frozen=True)
class Step:
    """A line of the result's body, with its own status icon."""

    name: str
    status: Status


@dataclass
class AllureResult:
    name: str
    full_name: str
    status: Status
    message: str = ""
    description: str = ""
    labels: list[tuple[str, str]] = field(default_factory=list)
    parameters: list[tuple[str, str]] = field(default_factory=list)
    # Shown beside the parameters, but not part of the result's identity: a verdict that
    # changes from run to run must not make it another test in Allure's history.
    details: list[tuple[str, str]] = field(default_factory=list)
    steps: list[Step] = field(default_factory=list)
    links: list[tuple[str, str]] = field(default_factory=list)  # (name, url)
    attachments: list[Attachment] = field(default_factory=list)
    # Where it sorts among the run's results: Allure lists them by start time, so a
    # result's start is this process's start plus its rank in ms (None: when written).
    order: int | None = None


def write_result(results_dir: Path, result: AllureResult) -> Path:
    results_dir.mkdir(parents=True, exist_ok=True)
    now = int(time.time() * 1000) if result.order is None else _STARTED_MS + result.order
    attachments = []
    for attachment in result.attachments:
        source = f"{uuid.uuid4()}-attachment.{attachment.extension}"
        (results_dir / source).write_text(attachment.content, encoding="utf-8")
        attachments.append({"name": attachment.name, "source": source, "type": attachment.mime})
    # The same test on another run gets the same history id, so Allure can show trends.
    identity = result.full_name + json.dumps(sorted(result.parameters))
    document: dict[str, Any] = {
        "uuid": str(uuid.uuid4()),
        "historyId": hashlib.md5(identity.encode()).hexdigest(),
        "testCaseId": hashlib.md5(result.full_name.encode()).hexdigest(),
        "name": result.name,
        "fullName": result.full_name,
        "status": result.status,
        "stage": "finished",
        "start": now,
        "stop": now,
        "description": result.description,
        "labels": [{"name": name, "value": value} for name, value in result.labels],
        "parameters": [
            *({"name": name, "value": value} for name, value in result.parameters),
            *({"name": n, "value": v, "excluded": True} for n, v in result.details),
        ],
        "steps": [
            {
                "name": step.name,
                "status": step.status,
                "stage": "finished",
                "start": now,
                "stop": now,
            }
            for step in result.steps
        ],
        "links": [{"type": "link", "name": name, "url": url} for name, url in result.links],
        "attachments": attachments,
    }
    if result.message:
        document["statusDetails"] = {"message": result.message}
    path = results_dir / f"{document['uuid']}-result.json"
    path.write_text(json.dumps(document, indent=2, ensure_ascii=False), encoding="utf-8")
    return path


_STARTED_MS = int(time.time() * 1000)
