"""A reproduction bundle's README.md: what the design expects, what codex did, how to run
it, and what the script does, step by step, for someone who has never seen codex-probe."""

from __future__ import annotations

import json
from typing import Any

from codex_probe.probes.domain.expressions import describe

FILES = (
    ("reproduce.py", "the replay of the scenario; Python standard library only"),
    (
        "reading.py",
        "how the finding's values are read from a run: codex-probe's own code, verbatim",
    ),
    ("requests.jsonl", "the JSON-RPC requests, in order, one step a line, with what it awaits"),
    ("replies.jsonl", "the model replies the mock provider queues, by step"),
    ("config.toml", "the codex home's config; `{{provider_url}}` becomes the mock's address"),
    ("finding.json", "the statement, the expected values and how each value is read"),
    ("observation.json", "what codex-probe recorded: outcome, record, what the model saw"),
    (
        "seal.py",
        "codex-probe's launcher: hides the host's `/etc/codex` and any `.git` above codex's "
        "working directory",
    ),
)


def render_readme(
    finding: dict[str, Any],
    outcome: dict[str, Any],
    steps: list[dict[str, Any]],
    replies: list[dict[str, Any]],
    evidence: list[str],
) -> str:
    version, kind = finding["version"], "required" if finding["required"] else "informative"
    on = f"the {'real ' if finding['backend'] == 'real' else 'fake of '}codex-cli {version}"
    lines = [
        f"# `{finding['finding']}` on codex-cli {version}: {outcome['verdict']}",
        "",
        f"> {finding['statement']}",
        "",
        f"Spec section {finding['spec_section']} ({kind}). Recorded by codex-probe on {on}, "
        f"scenario `{finding['scenario']}` (`{finding['probe_command']}`).",
        "",
        *_upstream(finding),
        "## Run it",
        "",
        "```sh",
        f"npm install @openai/codex@{version}   # or any codex binary you have",
        "python3 reproduce.py --codex node_modules/.bin/codex",
        "```",
        "",
        "It needs Python 3 and the codex binary, nothing else (no codex-probe, no package). "
        "Exit 0: codex behaves as recorded below; 1: it behaves otherwise; 2: the run could "
        "not be made (no codex, no answer within a deadline, a refusal of a step the scenario "
        "needs). `--timeout S` sets each wait's deadline (default 60 s), `--keep` keeps the "
        "codex home and the run's record, `--json` prints one JSON object.",
        "",
        "## Expected, and what codex did",
        "",
        *_values(finding, outcome),
        "",
    ]
    if evidence:
        lines += ["What the model was sent, as codex-probe labels it:", ""]
        lines += [f"- {item}" for item in evidence if "\n" not in item]
        lines.append("")
    lines += [
        "## What reproduce.py does",
        "",
        "It starts a mock Responses API on 127.0.0.1 (a port the OS chooses), writes "
        "config.toml into a fresh `CODEX_HOME` (and `HOME`) with the mock as the only model "
        "provider, and runs `codex app-server --listen stdio://` in it with an environment of "
        "its own (PATH is the only variable it keeps). It sends each request of requests.jsonl "
        "in order, replacing `{{thread:A}}`, `{{turn:LABEL}}` with the ids codex's answers gave "
        "and `{{workdir}}` with the working directory, and waits for what the step waits for. "
        "The mock answers each model request with the reply its step queued, else "
        '`"wiretap reply N"`, and a compaction request with a compaction item. Every wait has '
        "a deadline, and every process it starts is ended (its whole process group) before it "
        "exits.",
        "",
        "| step | sends | then |",
        "|---|---|---|",
        *(_step_row(step, replies) for step in steps),
        "",
        "reproduce.py starts codex as codex-probe does, sealed by `seal.py` (no `/etc/codex`, "
        "no `.git` above its working directory), where the host allows it (Linux with user "
        "namespaces). Elsewhere codex runs unsealed, and the report's `NOT SEALED` line names "
        "what of the host codex could see: a managed config in `/etc/codex` could change what "
        "it does.",
        "",
        "## Files",
        "",
        *(f"- `{name}`: {what}" for name, what in FILES),
        "",
    ]
    return "\n".join(lines)


def _upstream(finding: dict[str, Any]) -> list[str]:
    """The watched upstream issues the finding decides: what the run shows of each."""
    lines = []
    for issue in finding.get("upstream") or []:
        lines += [
            f"## Upstream: [{issue['issue']}]({issue['url']}) is {issue['state']} on codex-cli "
            f"{finding['version']}",
            "",
            f"*{issue['title']}*",
            "",
            f"Present means: {issue['present_means']}",
            "",
            "Read from this run as: " + "; ".join(f"`{sign}`" for sign in issue["shown_by"]),
            "(exit 0 of reproduce.py: codex still behaves as recorded below).",
            "",
        ]
    return lines


def _values(finding: dict[str, Any], outcome: dict[str, Any]) -> list[str]:
    expected, observed = finding["expected"], outcome["observed"]
    lines = []
    if outcome["failure"] is not None:
        failure = outcome["failure"]
        lines += [
            f"The run broke at step `{failure['step']}` ({failure['kind']}): {failure['detail']}",
            "",
        ]
    lines += [
        f"| value | expected | codex-cli {finding['version']} | read as |",
        "|---|---|---|---|",
    ]
    reads = finding["reads"]
    for key in [*expected, *(key for key in reads if key not in expected)]:
        read = reads[key]
        wanted = _json(expected[key]) if key in expected else ""
        seen = "" if observed is None else _json(observed.get(key))
        if key in expected and observed is not None and observed.get(key) != expected[key]:
            seen += " (differs)"
        lines.append(f"| `{key}` | {wanted} | {seen} | {describe(read)} |")
    return lines


def _step_row(step: dict[str, Any], replies: list[dict[str, Any]]) -> str:
    request = step.get("request")
    if step["step"] == "restart":
        sends = "starts `codex app-server`" + (", `initialize`" if request else "")
    else:
        sends = f"`{request['method']}`" if request else ""
    then = []
    for reply in (r for r in replies if r["step"] == step["label"]):
        if reply.get("until_released"):
            held = f", held until the scenario lets it go (at most {reply['delay_s']:g} s)"
        else:
            held = f", held {reply['delay_s']:g} s" if reply["delay_s"] else ""
        then.append(f"the model replies {_reply_words(reply)}{held}")
    if step.get("refusal_is_an_answer"):
        then.append("a refusal is an answer")
    if "silence_after_s" in step:
        then.append(f"no answer within {step['silence_after_s']:g} s is an answer")
    waits = step.get("waits_for") or {}
    if "settled_by" in waits:
        settled = waits["settled_by"]
        then.append(
            f"waits for {settled['method']} of a {settled['type']} item, then up to "
            f"{waits['within_s']:g} s for {waits['notification']} of `{waits['threadId']}` "
            "(none is an answer)"
        )
    elif "notification" in waits:
        then.append(f"waits for {waits['notification']} of `{waits['threadId']}`")
    if "then" in waits:
        then.append(f"then waits for {waits['then']['method']} of a {waits['then']['type']} item")
    for required in step.get("requires") or []:
        then.append(f"the run must show: {required['what']}")
    if "model_requests" in waits:
        then.append("waits until the model is asked")
    if "thread_unloaded" in waits:
        then.append(
            f"waits up to {waits['within_s']:g} s for thread/closed, then asks whether the "
            "thread is still loaded"
        )
    if "release_held" in waits:
        then.append(
            "lets the held answer go once codex asks the model anew, or after "
            f"{waits['release_held']['within_s']:g} s"
        )
    for name, path in (step.get("remember") or {}).items():
        then.append(f"`{path}` of the answer is `{{{{{name}}}}}`")
    return f"| `{step['label']}` | {sends} | {'; '.join(then)} |"


def _reply_words(reply: dict[str, Any]) -> str:
    """A queued reply in words: its text, or its scripted items and how its stream ends."""
    if "items" not in reply:
        return json.dumps(reply["text"])
    said = []
    for item in reply["items"]:
        if item["type"] == "message":
            said.append(f"a message {json.dumps(item['text'])}")
        elif item["type"] == "function_call":
            said.append(f"a call of `{item['name']}` with `{item['arguments']}`")
        elif item["type"] == "reasoning":
            said.append("a reasoning item")
        else:
            said.append("a pause until the scenario lets it go")
    end = reply.get("end")
    ending = f", then the stream ends {end}" if end else ""
    return (", ".join(said) or "no output item") + ending


def _json(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False)
    return f"`{text}`" if "`" not in text and "|" not in text else text.replace("|", "\\|")
