"""What two runs of one release must agree on: a JSON value as its keys and value types,
and a text with what differs from run to run masked.

The mask (the README's "What the surface masks" says the same):
- every value of an answer is its type: ids, times, paths, counters and texts are gone,
  and so are values that come and go (a field present but null in one run is `null`
  there and `string` in another: such fields, listed in VARYING, read `null|string`);
- in a refusal's message, a UUID is `<id>` and the scenario's temporary folders are
  `<tmp>`, and the time in a rollout file's name and folders is `<time>` (a rollback of
  a thread without turns names the file it did not find); the list of every value codex
  knows that follows "expected one of" (an unknown method's refusal names every method
  of the release) is `<the values codex knows>`: the schema aspect tells those apart,
  and the refusal keeps its own words.
"""

from __future__ import annotations

import re
from typing import Any

from codex_probe.harness.json_types import json_type
from codex_probe.harness.scratch import SCRATCH_FOLDER

UUID = re.compile(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}")
TEMPORARY = re.compile(SCRATCH_FOLDER + r"[A-Za-z0-9_]+(/[^\s'\"`,;)]*)?")
# sessions/2026/12/04/rollout-2026-12-04T16-54-07-<thread>.jsonl: when the thread began.
ROLLOUT_TIME = re.compile(
    r"(sessions/)\d{4}/\d{2}/\d{2}(/rollout-)\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}"
)
KNOWN_VALUES = re.compile(r"(expected one of )`[^`]*`(, `[^`]*`)*")
ROOT = "$"
# Values a background task of codex sets, or not yet, when the answer goes out: their
# type is kept with null always allowed, so null in one run and a string in another read
# the same, and another type still shows. thread.name: null in 6 of 7 probes of 0.122.0's
# override-persistence resume-plain answer and a string in the seventh (2026-12-02).
VARYING = ("thread.name",)


def shape(value: Any) -> dict[str, str]:
    """Every path of a JSON value with its type: `$` the value, `thread.id` a key of an
    object, `data[]` the items of an array (several types joined: `null|string`)."""
    found: dict[str, set[str]] = {}
    _walk(value, ROOT, found)
    for path in VARYING:
        if path in found:
            found[path] |= {"null", "string"}
    return {path: "|".join(sorted(types)) for path, types in sorted(found.items())}


def _walk(value: Any, path: str, found: dict[str, set[str]]) -> None:
    found.setdefault(path, set()).add(json_type(value))
    if isinstance(value, dict):
        for key, item in value.items():
            _walk(item, f"{key}" if path == ROOT else f"{path}.{key}", found)
    elif isinstance(value, list):
        for item in value:
            _walk(item, f"{path}[]", found)


def mask_text(text: str) -> str:
    """A message as two runs both say it: ids and temporary folders masked."""
    masked = TEMPORARY.sub("<tmp>", UUID.sub("<id>", ROLLOUT_TIME.sub(r"\1<time>\2<time>", text)))
    return KNOWN_VALUES.sub(r"\1<the values codex knows>", masked)
