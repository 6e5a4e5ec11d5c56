"""The session answers what codex asks its client, as the scenario says, and records it."""

from __future__ import annotations

from typing import Any

import pytest

from codex_probe.harness.codex.install import install
from codex_probe.harness.codex.schema import ensure_schema
from codex_probe.harness.codex.validator import MessageValidator
from codex_probe.rig.answers import DEFAULT_ANSWERS, WITHOUT_DEFAULT, AnswerPolicy

RELEASES = ("0.120.0", "0.150.0", "0.171.0")


async def test_a_method_the_scenario_names_gets_its_answer_and_the_rest_the_default() -> None:
    accept = {"decision": "accept"}
    policy = AnswerPolicy({"item/commandExecution/requestApproval": accept})
    command = policy.handler("item/commandExecution/requestApproval", 0)
    files = policy.handler("item/fileChange/requestApproval", 1)
    assert await command({"itemId": "a"}) == accept
    assert await files({"itemId": "b"}) == {"decision": "decline"}
    answered = [(a.method, a.params, a.result, a.process) for a in policy.answered]
    assert answered == [
        ("item/commandExecution/requestApproval", {"itemId": "a"}, accept, 0),
        ("item/fileChange/requestApproval", {"itemId": "b"}, {"decision": "decline"}, 1),
    ]


async def test_an_answer_may_be_computed_from_the_request() -> None:
    def answers(params: Any) -> Any:
        return {"answers": {q["id"]: {"answers": ["yes"]} for q in params["questions"]}}

    policy = AnswerPolicy({"item/tool/requestUserInput": answers})
    asked = {"questions": [{"id": "confirm"}]}
    result = await policy.handler("item/tool/requestUserInput", 0)(asked)
    assert result == {"answers": {"confirm": {"answers": ["yes"]}}}


async def test_a_default_answer_handed_out_is_a_copy_the_caller_cannot_change() -> None:
    policy = AnswerPolicy()
    first = await policy.handler("item/tool/call", 0)({})
    first["success"] = True
    assert await policy.handler("item/tool/call", 0)({}) == {"contentItems": [], "success": False}


def test_the_policy_answers_every_default_method_and_the_scenario_s_own() -> None:
    policy = AnswerPolicy({"some/new/request": {}})
    assert policy.methods() == sorted([*DEFAULT_ANSWERS, "some/new/request"])
    assert not set(WITHOUT_DEFAULT) & set(policy.methods())


@pytest.fixture(scope="module", params=RELEASES)
def validator(request: pytest.FixtureRequest) -> MessageValidator:
    return MessageValidator(ensure_schema(install(request.param)))


@pytest.mark.real
def test_every_server_request_of_a_release_has_a_default_answer_or_says_why_it_has_none(
    validator: MessageValidator,
) -> None:
    asked = set(validator.methods("server request"))
    assert asked - set(DEFAULT_ANSWERS) - set(WITHOUT_DEFAULT) == set()


@pytest.mark.real
def test_every_default_answer_is_a_valid_response_in_each_release_s_schema(
    validator: MessageValidator,
) -> None:
    asked = set(validator.methods("server request"))
    for method, result in DEFAULT_ANSWERS.items():
        if method in asked:
            message = {"id": 1, "result": result}
            assert validator.check("client response", message, method=method) == [], method
