"""What a cell says about its own params: the fields its refusal names, and the values it
sent that the release echoed, so that a request with other values gets its own answer."""

from __future__ import annotations

from typing import Any

from codex_probe.fake_appserver.answer_book import BookCell, RecordedError
from codex_probe.fake_appserver.book_echoes import (
    echo_answer,
    echo_words,
    refusal_causes,
    unasked_parts_dropped,
)
from codex_probe.fake_appserver.book_lookup import answering_cell, refused_for_its_values
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


def test_a_value_is_named_only_where_it_stands_alone_in_the_message() -> None:
    # Measured on 0.168.0: the full turn/start sends `personality: "none"`, and its
    # refusal says `nonempty`; it is refused for `toolOutput` alone.
    message = "`toolOutput` cannot be combined with nonempty `input`"
    full = refused({"toolOutput": {"x": 1}, "personality": "none"}, message)
    assert refusal_causes(full, frozenset({"toolOutput", "personality"})) == {"toolOutput"}


def test_a_refusal_names_the_values_the_request_sent_in_place_of_the_cells() -> None:
    words = echo_words(
        "marketplace `explore` is not configured",
        {"marketplaceName": "explore"},
        {"marketplaceName": "explore-1-554"},
    )
    assert words == "marketplace `explore-1-554` is not configured"
    # Only where the value stands alone, never inside a longer word.
    assert echo_words("exploreX", {"name": "explore"}, {"name": "y"}) == "exploreX"


def test_a_text_the_cell_sent_in_two_fields_is_the_one_of_the_field_it_added() -> None:
    sent = {"pluginName": "explore", "remoteMarketplaceName": "explore"}
    asked = {"pluginName": "p-1", "remoteMarketplaceName": "m-1"}
    message = "remote plugin read is not enabled for marketplace explore"
    assert echo_words(message, sent, asked, "remoteMarketplaceName").endswith("marketplace m-1")
    assert echo_words(message, sent, asked).endswith("marketplace p-1")


def test_a_field_the_release_refuses_alone_refuses_a_request_that_sends_it() -> None:
    conflict = {"code": -32600, "message": "Configuration was modified since last read."}
    write = {"keyPath": "k", "value": "v", "mergeStrategy": "replace"}
    book = learn_book(
        record(
            "0.165.0",
            [
                cell("config/value/write", "none", "minimal", write, result={"status": "ok"}),
                cell(
                    "config/value/write",
                    "none",
                    "mergeStrategy=upsert",
                    {**write, "mergeStrategy": "upsert"},
                    result={"status": "ok"},
                ),
                cell(
                    "config/value/write",
                    "none",
                    "with expectedVersion",
                    {**write, "expectedVersion": "explore"},
                    error=conflict,
                ),
            ],
        )
    )
    upsert = {**write, "mergeStrategy": "upsert", "expectedVersion": "v-9"}
    for params in (upsert, {"keyPath": "k", "value": "v", "expectedVersion": "v-9", "x": 1}):
        found = answering_cell(book, "config/value/write", "none", params)
        assert found is not None and found[0].variant == "with expectedVersion", params
    found = answering_cell(book, "config/value/write", "none", {**write, "mergeStrategy": "upsert"})
    assert found is not None and found[0].outcome == "answered"


def test_of_two_fields_refused_alone_the_one_the_full_call_was_refused_for_comes_first() -> None:
    readonly = {"code": -32600, "message": "Only writes to the user config are allowed"}
    conflict = {"code": -32600, "message": "Configuration was modified since last read."}
    edits: dict[str, Any] = {"edits": []}
    both = {"edits": [{"keyPath": "k"}], "expectedVersion": "e", "filePath": "f", "reload": True}
    book = learn_book(
        record(
            "0.165.0",
            [
                cell("config/batchWrite", "none", "minimal", edits, result={"status": "ok"}),
                cell("config/batchWrite", "none", "full", both, error=readonly),
                cell(
                    "config/batchWrite",
                    "none",
                    "with expectedVersion",
                    {**edits, "expectedVersion": "e"},
                    error=conflict,
                ),
                cell(
                    "config/batchWrite",
                    "none",
                    "with filePath",
                    {**edits, "filePath": "f"},
                    error=readonly,
                ),
            ],
        )
    )
    sent = {"edits": [{"keyPath": "x"}], "expectedVersion": "v-2", "filePath": "g"}
    found = answering_cell(book, "config/batchWrite", "none", sent)
    assert found is not None and found[0].variant == "with filePath"


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


def test_where_the_minimal_call_was_refused_too_the_full_ones_reason_still_needs_its_field() -> (
    None
):
    no_server = {"code": -32600, "message": "No MCP server named 'explore' found."}
    no_thread = {"code": -32600, "message": f"thread not found: {T}"}
    book = learn_book(
        record(
            "0.161.0",
            [
                cell(
                    "mcpServer/oauth/login", "none", "minimal", {"name": "explore"}, error=no_server
                ),
                cell(
                    "mcpServer/oauth/login",
                    "none",
                    "full",
                    {"name": "explore", "scopes": ["s"], "threadId": T},
                    error=no_thread,
                ),
            ],
        )
    )
    sent = {"name": "other", "scopes": ["t"]}
    found = answering_cell(book, "mcpServer/oauth/login", "none", sent)
    assert found is not None and found[0].variant == "minimal"


def test_a_full_call_refused_for_a_field_the_request_sends_refuses_it() -> None:
    assert variant("thread/list", {"originators": ["o"], "sourceKinds": ["cli"]}) == "full"
    assert variant("thread/list", {"sourceKinds": ["cli"], "limit": 2}) == "sourceKinds=[cli]"
    # An empty filter asks for nothing: not refused for it.
    assert variant("thread/list", {"originators": [], "limit": 2}) != "full"


def test_a_full_call_refused_for_two_fields_together_refuses_only_a_request_with_both() -> None:
    assert variant("turn/start", {"input": [1], "cwd": "/w"}) == "minimal"
    assert variant("turn/start", {"input": [1], "toolOutput": {"output": "o"}}) == "full"


REFUSING = learn_book(
    record(
        "0.165.0",
        [
            cell("review/start", "idle", "minimal", {"threadId": T}, result={"turn": {}}),
            cell("review/start", "forked", "minimal", {"threadId": T}, result={"turn": {}}),
            cell(
                "review/start",
                "unloaded",
                "minimal",
                {"threadId": T},
                error={"code": -32600, "message": f"thread not found: {T}"},
            ),
            cell(
                "review/start",
                "idle",
                "full",
                {"delivery": "inline", "threadId": T},
                result={"turn": {}},
            ),
            cell(
                "review/start",
                "idle",
                "delivery=detached",
                {"delivery": "detached", "threadId": T},
                error={"code": -32600, "message": "detached review is not supported"},
            ),
            cell(
                "review/start",
                "idle",
                "approvalPolicy=Granular",
                {"approvalPolicy": {"granular": {"rules": False}}, "threadId": T},
                error={"code": -32600, "message": "granular requires experimentalApi"},
            ),
        ],
    )
)


def test_a_value_the_release_refused_refuses_a_request_of_the_full_calls_fields_too() -> None:
    found = answering_cell(
        REFUSING, "review/start", "idle", {"delivery": "detached", "threadId": "t"}
    )
    assert found is not None and found[0].variant == "delivery=detached"


def test_an_externally_tagged_value_is_known_by_its_one_key() -> None:
    sent = {"approvalPolicy": {"granular": {"rules": True}}, "threadId": "t"}
    found = answering_cell(REFUSING, "review/start", "idle", sent)
    assert found is not None and found[0].variant == "approvalPolicy=Granular"


def test_a_part_of_the_answer_a_field_asks_for_is_left_out_where_the_request_does_not_ask() -> None:
    full: dict[str, Any] = {"config": {}, "layers": []}
    sent = {"cwd": "{{work}}", "includeLayers": True}
    minimal: dict[str, Any] = {"config": {}}
    assert unasked_parts_dropped(full, sent, {"cwd": "/w"}, minimal) == {"config": {}}
    assert unasked_parts_dropped(full, sent, {"includeLayers": True}, minimal) == full


def test_a_value_refused_on_an_idle_thread_is_refused_on_a_forked_one_too() -> None:
    found = refused_for_its_values(
        REFUSING, "review/start", "forked", {"delivery": "detached", "threadId": "t"}
    )
    assert found is not None and found.variant == "delivery=detached"


def test_a_value_refused_where_the_minimal_call_was_refused_too_is_the_states_doing() -> None:
    goal_book = learn_book(
        record(
            "0.165.0",
            [
                cell(
                    "thread/goal/set",
                    "idle",
                    "minimal",
                    {"threadId": T},
                    error={"code": -32600, "message": "no goal exists"},
                ),
                cell(
                    "thread/goal/set",
                    "idle",
                    "full",
                    {"objective": "o", "status": "paused", "threadId": T},
                    result={"goal": {}},
                ),
                cell(
                    "thread/goal/set",
                    "idle",
                    "status=paused",
                    {"status": "paused", "threadId": T},
                    error={"code": -32600, "message": "no goal exists"},
                ),
            ],
        )
    )
    sent = {"objective": "x", "status": "paused", "threadId": "t"}
    found = answering_cell(goal_book, "thread/goal/set", "idle", sent)
    assert found is not None and found[0].variant == "full"


def test_a_thread_the_release_cannot_find_is_refused_for_that_before_any_value() -> None:
    sent = {"delivery": "detached", "threadId": "t"}
    found = answering_cell(REFUSING, "review/start", "unloaded", sent)
    assert found is not None and found[0].variant == "minimal"


def test_a_handlers_answer_takes_the_echoed_values_of_another_kind_one_object_down() -> None:
    from codex_probe.fake_appserver.book_answers import _retyped

    full = BookCell(
        "idle",
        "full",
        "valid",
        {"threadSource": "explore", "serviceTier": "flex", "threadId": T},
        "answered",
        result={"serviceTier": "flex", "thread": {"threadSource": "explore", "id": T}},
    )
    handler = {"serviceTier": None, "thread": {"threadSource": None, "id": "t"}}
    sent = {"threadSource": "mine", "serviceTier": "fast", "threadId": "t"}
    assert _retyped(handler, full, sent, {}) == {
        "serviceTier": "fast",
        "thread": {"threadSource": "mine", "id": "t"},
    }


def test_a_full_call_refused_for_a_boolean_does_not_refuse_a_request_with_the_other_one() -> None:
    # Measured on 0.144.5: a thread without turns is refused `includeTurns: true`, and a
    # read with `includeTurns: false` answered.
    refusal = "thread {{thread}} is not materialized yet; includeTurns is unavailable"
    book = learn_book(
        record(
            "0.144.5",
            [
                cell("thread/read", "new", "minimal", {"threadId": T}, result={"thread": {}}),
                cell(
                    "thread/read",
                    "new",
                    "full",
                    {"threadId": T, "includeTurns": True},
                    error={"code": -32600, "message": refusal},
                ),
            ],
        )
    )
    sent = {"threadId": "01a23a4d-2348-7683-ab1d-51da57ab6e25", "includeTurns": False}
    assert refused_for_its_values(book, "thread/read", "new", sent) is None
    refused = refused_for_its_values(book, "thread/read", "new", {**sent, "includeTurns": True})
    assert refused is not None and refused.variant == "full"
