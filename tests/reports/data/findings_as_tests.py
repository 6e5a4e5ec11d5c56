"""Findings reported the way the probes report them: one test per finding, run by the
report tests with `--alluredir` to get real allure-pytest results. Not collected by the
suite itself (the name does not start with test_). Labels go through allure-pytest's
markers, which produce the same result files as `allure.dynamic`."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import TypeVar

import allure
import pytest

SPEC = "shared/spec/codex-runtime-instructions-prompt-split.md"
Test = TypeVar("Test", bound=Callable[[str], None])


class ProbeBroken(RuntimeError):
    """The probe could not measure."""


def finding(finding_id: str, section: str, version: str, required: bool) -> Callable[[Test], Test]:
    marks = [
        pytest.mark.allure_label(f"spec {section}", label_type="epic"),
        pytest.mark.allure_label(finding_id, label_type="feature"),
        pytest.mark.allure_label("critical" if required else "normal", label_type="severity"),
        pytest.mark.allure_link(
            f"{SPEC}#{section}", link_type="link", name=f"spec section {section}"
        ),
        pytest.mark.parametrize("codex_version", [version]),
    ]

    def apply(test: Test) -> Test:
        for mark in marks:
            test = mark(test)
        return test

    return apply


@finding("start-applies-instructions", "5.2", "0.171.0", required=True)
def test_start_applies_instructions_holds(codex_version: str) -> None:
    allure.attach(
        json.dumps({"method": "thread/start", "codex": codex_version}),
        "json-rpc transcript.jsonl",
        allure.attachment_type.TEXT,
    )


@finding("compaction-keeps-instructions", "5.1", "0.171.0", required=True)
def test_compaction_keeps_instructions_changed(codex_version: str) -> None:
    pytest.fail(
        f"assumption changed upstream: compaction-keeps-instructions on {codex_version}: "
        "developer_seen_after: expected True, observed False\n"
        "Reproduce with: codex-probe probe --codex 0.171.0 --only compaction-keeps-instructions",
        pytrace=False,
    )


@finding("error-steer-wrong-turn", "5.3", "0.120.0", required=True)
def test_error_steer_wrong_turn_broken(codex_version: str) -> None:
    raise ProbeBroken(f"harness broken: turn/steer got no answer within 30s on {codex_version}")


@finding("fake-fidelity-start", "fake", "0.171.0", required=False)
def test_fake_fidelity_start_diverges(codex_version: str) -> None:
    pytest.fail(
        f"fake diverges from real: scenario start on {codex_version}: "
        '{"values_changed": {"root[\'requests\'][0][\'instructions\']": "..."}}',
        pytrace=False,
    )


@finding("resume-refresh-cold", "5.3", "0.120.0", required=False)
def test_timeout_in_a_probe_is_broken_too(codex_version: str) -> None:
    raise TimeoutError(f"thread/resume (id 3) got no answer within 20.0s on {codex_version}")
