from __future__ import annotations

import pytest

from codex_probe.harness.codex.install import Installation
from codex_probe.harness.codex.schema import ensure_schema
from codex_probe.harness.codex.validator import MessageValidator

pytestmark = pytest.mark.real


@pytest.fixture(scope="module")
def validator(default_codex: Installation) -> MessageValidator:
    return MessageValidator(ensure_schema(default_codex))


def test_a_well_formed_thread_start_request_has_no_violations(validator: MessageValidator) -> None:
    request = {
        "id": 1,
        "method": "thread/start",
        "params": {"cwd": "/tmp", "baseInstructions": "b", "developerInstructions": None},
    }
    assert validator.check("client request", request) == []


def test_a_wrongly_typed_field_is_reported_with_its_path(validator: MessageValidator) -> None:
    request = {"id": 1, "method": "thread/start", "params": {"baseInstructions": 42}}
    violations = validator.check("client request", request)
    assert [v.where for v in violations] == ["params.baseInstructions"]
    assert "42" in violations[0].problem
    assert str(violations[0]).startswith("client request thread/start at params.baseInstructions")


def test_a_method_the_version_does_not_define_is_a_violation(validator: MessageValidator) -> None:
    violations = validator.check(
        "client request", {"id": 1, "method": "thread/teleport", "params": {}}
    )
    assert len(violations) == 1 and "not a client request method" in violations[0].problem


def test_a_response_is_checked_against_the_response_type_of_its_request(
    validator: MessageValidator,
) -> None:
    bad = {"id": 1, "result": {"thread": "not an object"}}
    violations = validator.check("server response", bad, method="thread/start")
    assert violations and all(v.where.startswith("result") for v in violations)
    assert validator.has_response_schema("client request", "turn/steer")


def test_an_error_response_needs_an_integer_code_and_a_message(validator: MessageValidator) -> None:
    assert (
        validator.check(
            "server response",
            {"id": 1, "error": {"code": -32600, "message": "x"}},
            method="thread/resume",
        )
        == []
    )
    broken = validator.check("server response", {"id": 1, "error": {"code": "bad"}}, method=None)
    assert {v.where for v in broken} == {"error", "error.code"}


def test_server_notifications_are_checked_by_method(validator: MessageValidator) -> None:
    assert validator.check(
        "server notification", {"method": "turn/started", "params": {"threadId": 5}}
    )
    assert "thread/started" in validator.methods("server notification")
