"""What a cell says about its own params: the fields its refusal names, and the values it
sent that the release echoed, so that a request with other values gets its own answer."""

from __future__ import annotations

from typing import Any

from codex_probe.fake_appserver.answer_book import BookCell, RecordedError
from codex_probe.fake_appserver.book_echoes import echo_answer, echo_words, refusal_causes
from codex_probe.fake_appserver.book_lookup import answering_cell
from codex_probe.probes.releases.learn.book import learn_book
from tests.fake.book_fixtures import cell, record

T = "{{thread}}"


def refused(params: dict[str, Any], message: str) -> BookCell:
    error = RecordedError(code=-32600, message=message)
    return BookCell("none", "full", "valid", params, "refused", error=error)


def test_a_refusal_names_the_field_whose_value_or_name_its_message_holds() -> None:
    full = refused({"threadId": T, "force": False}, f"thread not found: {T}")
    assert refusal_causes(full, frozenset({"threadId", "force"})) == {"threadId"}
    full = refused({"originators": ["x"], "limit": 5}, "originator filtering is not supported")
    assert refusal_causes(full, frozenset({"originators", "limit"})) == {"originators"}
    assert refusal_causes(full, frozenset({"limit"})) == frozenset()


def test_a_refusal_names_the_values_the_request_sent_in_place_of_the_cells() -> None:
    words = echo_words(
        "marketplace `explore` is not configured",
        {"marketplaceName": "explore"},
        {"marketplaceName": "explore-1-554"},
    )
    assert words == "marketplace `explore-1-554` is not configured"
    # Only where the value stands alone, never inside a longer word.
    assert echo_words("exploreX", {"name": "explore"}, {"name": "y"}) == "exploreX"


def test_an_answer_echoes_the_value_sent_and_without_it_what_the_release_answers_then() -> None:
    answered = {"serviceTier": "flex", "goal": {"tokenBudget": 1, "status": "paused"}}
    sent = {"serviceTier": "flex", "tokenBudget": 1, "status": "paused"}
    echoed = echo_answer(answered, sent, {"serviceTier": "fast"}, {"serviceTier": None})
    assert echoed == {"serviceTier": "fast", "goal": {"tokenBudget": None, "status": "paused"}}


def test_an_object_sent_and_echoed_answers_null_for_what_the_request_leaves_out() -> None:
    answered = {"thread": {"gitInfo": {"branch": "main", "sha": "0"}}}
    sent = {"gitInfo": {"branch": "main", "sha": "0"}}
    echoed = echo_answer(answered, sent, {"gitInfo": {"sha": "1"}}, {})
    assert echoed == {"thread": {"gitInfo": {"branch": None, "sha": "1"}}}


BOOK = learn_book(
    record(
        "0.165.0",
        [
            cell("app/list", "none", "minimal", {}, result={"apps": []}),
            cell(
                "app/list",
                "none",
                "full",
                {"forceRefetch": False, "threadId": T},
                error={"code": -32600, "message": f"thread not found: {T}"},
            ),
            cell("turn/start", "none", "minimal", {"input": []}, result={"turn": {}}),
            cell(
                "turn/start",
                "none",
                "full",
                {"input": [], "toolOutput": {}, "cwd": "{{work}}"},
                error={"code": -32600, "message": "`toolOutput` cannot be combined with `input`"},
            ),
            cell("thread/list", "none", "minimal", {}, result={"data": []}),
            cell(
                "thread/list",
                "none",
                "full",
                {"originators": ["explore"], "sourceKinds": ["cli"], "limit": 5},
                error={"code": -32602, "message": "originator filtering is not supported"},
            ),
            cell(
                "thread/list",
                "none",
                "sourceKinds=[cli]",
                {"sourceKinds": ["cli"]},
                result={"data": []},
            ),
        ],
    )
)


def variant(method: str, params: Any) -> str:
    found = answering_cell(BOOK, method, "none", params)
    assert found is not None
    return found[0].variant


def test_a_full_call_refused_for_a_field_the_request_lacks_does_not_refuse_it() -> None:
    assert variant("app/list", {"forceRefetch": True}) == "minimal"
    assert variant("app/list", {"threadId": "x"}) == "full"


def test_a_full_call_refused_for_a_field_the_request_sends_refuses_it() -> None:
    assert variant("thread/list", {"originators": ["o"], "sourceKinds": ["cli"]}) == "full"
    assert variant("thread/list", {"sourceKinds": ["cli"], "limit": 2}) == "sourceKinds=[cli]"


def test_a_full_call_refused_for_two_fields_together_refuses_only_a_request_with_both() -> None:
    assert variant("turn/start", {"input": [1], "cwd": "/w"}) == "minimal"
    assert variant("turn/start", {"input": [1], "toolOutput": {}}) == "full"
