"""The values the exploration owns, by field name: what a call carries where the schema
alone would say `"explore"`.

Values that exist only at run time are placeholders, filled in per cell (run.py):

    {{thread}}   the thread the cell is about (in the state `none`: {{unknown}})
    {{turn}}     that thread's last turn (its turn in flight, in that state)
    {{unknown}}  a well-formed id nobody has
    {{work}}     the exploration's working folder (the threads' cwd); every path a call
                 names is inside it: files/ holds what calls read, out/ what they write
    {{cell}}     a name of the cell's own, so two cells never write the same path
    {{wiretap}}  the wiretap's base URL (a URL a call names goes nowhere else)

Recorded params keep the placeholders, and recorded answers get them back in place of the
values (record.py), so a record says the same thing in every run and a learner can fill
them in anew.

Where a value would make codex act beyond the sealed home or wait on us, it is chosen so
it does not: booleans that force a refresh from a service are false, a command's stdin and
terminal are off, a pagination cursor is null (a made-up one is only refused).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from codex_probe.probes.explore.schema_values import MISSING, Path

THREAD = "{{thread}}"
TURN = "{{turn}}"
UNKNOWN = "{{unknown}}"
WORK = "{{work}}"
CELL = "{{cell}}"
WIRETAP = "{{wiretap}}"
PLACEHOLDER = re.compile(r"\{\{([a-z]+)\}\}")
# The id nobody has (a UUID, so it is refused as unknown, not as malformed).
UNKNOWN_ID = "00000000-0000-4000-8000-00000000e4a1"

# The files the exploration lays out in its working folder before any call (run.py).
READABLE = f"{WORK}/files/readme.txt"
IMAGE = f"{WORK}/files/image.png"
AUDIO = f"{WORK}/files/audio.wav"
SKILL = f"{WORK}/skills/explore/SKILL.md"
SCRATCH = f"{WORK}/out/{CELL}"
TEXT_INPUT = [{"type": "text", "text": "explore"}]

# By the name of the field (the last element of its path).
BY_NAME: dict[str, Any] = {
    "threadId": THREAD,
    "beforeThreadId": THREAD,
    "includedThreadIds": [THREAD],
    "excludedThreadIds": [THREAD],
    "turnId": TURN,
    "expectedTurnId": TURN,
    "lastTurnId": TURN,
    "beforeTurnId": TURN,
    "parentTurnId": TURN,
    "rootTurnId": TURN,
    "loginId": UNKNOWN,
    "cwd": WORK,
    "cwds": [WORK],
    "roots": [WORK],
    "writableRoots": [WORK],
    "extraRoots": [f"{WORK}/skills"],
    "extraUserRoots": [f"{WORK}/skills"],
    "path": READABLE,
    "sourcePath": READABLE,
    "destinationPath": f"{SCRATCH}.copy",
    "savePath": f"{SCRATCH}.feedback",
    "filePath": f"{SCRATCH}.toml",
    "extraLogFiles": [READABLE],
    "marketplacePath": f"{WORK}/marketplace",
    "pluginPath": f"{WORK}/plugin",
    "credentialFile": f"{WORK}/files/credentials.json",
    "url": f"{WIRETAP}/explore.png",
    "baseUrl": WIRETAP,
    "fileId": "file-explore",
    "command": ["echo", "explore"],
    "env": {"EXPLORE": "1"},
    "size": {"cols": 80, "rows": 24},
    "dataBase64": "ZXhwbG9yZQ==",
    "deltaBase64": "ZXhwbG9yZQ==",
    "apiKey": "sk-explore-not-a-key",
    "accessToken": "explore-not-a-token",
    "accessKeyId": "explore-not-a-key",
    "secretAccessKey": "explore-not-a-key",
    "sessionToken": "explore-not-a-token",
    "chatgptAccountId": "explore-account",
    "region": "us-east-1",
    "query": "readme",
    "keyPath": "explore_probe",
    "model": "mock-model",
    "modelProvider": "mock",
    "modelProviders": ["mock"],
    "providerId": "mock",
    "effort": "low",
    "serviceTier": "flex",
    "serviceTierForTurn": "flex",
    "baseInstructions": "EXPLORE base instructions.",
    "developerInstructions": "EXPLORE developer instructions.",
    "input": TEXT_INPUT,
    "items": [
        {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "explore"}]}
    ],
    "outputSchema": {"type": "object", "properties": {}, "additionalProperties": False},
    "payload": {"explore": True},
    "event": {},
    "arguments": {},
    "_meta": {},
    "uri": "explore://resource",
    "classification": "bug",
    "sha": "0" * 40,
    "branch": "main",
    "refName": "main",
    "timeoutMs": 10000,
    "timeoutSecs": 5,
    "limit": 5,
    # Spent by the first turn (states.INPUT_TOKENS): an active goal runs one turn, not forever.
    "tokenBudget": 1,
    "outputBytesCap": 4096,
    "numTurns": 1,
    "cursor": None,
    "sectionId": None,
    "processId": "explore-process",
    "watchId": "explore-watch",
    # Booleans that would make codex fetch from a service, or wait on a stdin or terminal
    # that nobody feeds: off, in the full call too.
    "forceRefetch": False,
    "forceRemoteSync": False,
    "forceRefresh": False,
    "refreshToken": False,
    "deviceAuth": False,
    "streamStdin": False,
    "tty": False,
    "disableTimeout": False,
}
# By method and the field's path (names joined by dots, alternatives as `<label>`).
BY_METHOD: dict[str, dict[str, Any]] = {
    "fs/readDirectory": {"path": f"{WORK}/files"},
    "fs/writeFile": {"path": f"{SCRATCH}.txt"},
    "fs/createDirectory": {"path": SCRATCH},
    "fs/remove": {"path": f"{SCRATCH}.remove"},  # laid out by run.py before the call
    "fs/watch": {"path": f"{WORK}/files"},
    "skills/config/write": {"path": SKILL, "name": "explore"},
    "thread/shellCommand": {"command": "echo explore"},
    # An active goal sets codex working on its own, a turn after the answer: paused, the
    # goal is set and nothing runs (whether its turn fell inside the call's window was
    # timing, 1 run of 2).
    "thread/goal/set": {"status": "paused"},
    "marketplace/add": {"source": f"{WORK}/marketplace"},
    "threadSection/update": {"sectionId": "explore-section"},
    "threadSection/delete": {"sectionId": "explore-section"},
    "turn/start": {
        "input.[].<localImage>.path": IMAGE,
        "input.[].<localAudio>.path": AUDIO,
        "input.[].<skill>.path": SKILL,
        "input.[].<mention>.path": "app://explore",
    },
    "turn/steer": {
        "input.[].<localImage>.path": IMAGE,
        "input.[].<localAudio>.path": AUDIO,
        "input.[].<skill>.path": SKILL,
        "input.[].<mention>.path": "app://explore",
    },
}


def fill_for(method: str) -> Any:
    """The `fill` of schema_values.Builder for the params of `method`."""
    own = BY_METHOD.get(method, {})

    def fill(path: Path, node: dict[str, Any]) -> Any:
        if not path:
            return MISSING
        dotted = ".".join(path)
        if dotted in own:
            return own[dotted]
        name = path[-1]
        if name.startswith(("<", "[")):
            return MISSING
        if name in own:
            return own[name]
        return BY_NAME.get(name, MISSING)

    return fill


def substitute(value: Any, values: Mapping[str, str]) -> Any:
    """`value` with every placeholder replaced by its value (an unknown one is kept)."""
    if isinstance(value, str):
        return PLACEHOLDER.sub(lambda found: values.get(found.group(1), found.group(0)), value)
    if isinstance(value, list):
        return [substitute(item, values) for item in value]
    if isinstance(value, dict):
        return {key: substitute(item, values) for key, item in value.items()}
    return value


def unsubstitute(value: Any, values: Mapping[str, str]) -> Any:
    """`value` with each placeholder's value put back as the placeholder (the longest
    values first, so a path inside the working folder is `{{work}}/...`)."""
    pairs = sorted(((v, k) for k, v in values.items() if v), key=lambda pair: -len(pair[0]))

    def text(found: str) -> str:
        for real, name in pairs:
            found = found.replace(real, "{{" + name + "}}")
        return found

    def walk(item: Any) -> Any:
        if isinstance(item, str):
            return text(item)
        if isinstance(item, list):
            return [walk(part) for part in item]
        if isinstance(item, dict):
            return {text(key): walk(part) for key, part in item.items()}
        return item

    return walk(value)
