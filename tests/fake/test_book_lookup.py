"""Which cell of the book answers a request: the same params, else the same fields, else
the enumerated value sent, else the nearer of the minimal and full calls; and how a
thread's state moves."""

from __future__ import annotations

from typing import Any

from codex_probe.fake_appserver.book_lookup import (
    answering_cell,
    fill,
    gated_refusal,
    matches,
    refused_for_its_values,
    same_params_cell,
)
from codex_probe.fake_appserver.book_values import effects
from codex_probe.fake_appserver.thread_states import ThreadStates
from codex_probe.probes.releases.learn.book import learn_book
from tests.fake.book_fixtures import cell, record

T = "{{thread}}"
ID = "01a23a4d-2348-7683-ab1d-51da57ab6e25"
BOOK = learn_book(
    record(
        "0.171.0",
        [
            cell("thread/start", "none", "minimal", None, result={"v": "minimal"}),
            cell(
                "thread/start",
                "none",
                "full",
                {"cwd": "{{work}}", "ephemeral": True, "sandbox": "read-only"},
                result={"v": "full"},
            ),
            cell(
                "thread/start",
                "none",
                "sandbox=workspace-write",
                {"sandbox": "workspace-write"},
                result={"v": "ws"},
            ),
            cell(
                "thread/start",
                "none",
                "sandbox=danger-full-access",
                {"sandbox": "danger-full-access"},
                result={"v": "dfa"},
            ),
            cell(
                "thread/start",
                "none",
                "ephemeral of the wrong type",
                {"ephemeral": 42},
                kind="invalid",
                error={"code": -32600, "message": "m"},
            ),
            cell("thread/read", "idle", "minimal", {"threadId": T}, result={"v": "idle"}),
            cell("thread/read", "none", "minimal", {"threadId": T}, result={"v": "none"}),
        ],
    )
)


def variant(method: str, state: str, params: Any, book: Any = BOOK) -> str:
    found = answering_cell(book, method, state, params)
    assert found is not None
    return found[0].variant


def test_the_same_params_win_with_a_placeholder_standing_for_any_text() -> None:
    params = {"cwd": "/w", "ephemeral": True, "sandbox": "read-only"}
    assert variant("thread/start", "none", params) == "full"
    found = answering_cell(BOOK, "thread/start", "none", params)
    assert found is not None and found[1] == {"work": "/w"}


def test_a_refused_call_of_the_same_params_is_found_in_any_state() -> None:
    assert variant("thread/start", "idle", {"ephemeral": 42}) == "ephemeral of the wrong type"


def test_else_the_enumerated_value_sent_picks_its_cell() -> None:
    assert variant("thread/start", "none", {"cwd": "/w", "sandbox": "danger-full-access"}) == (
        "sandbox=danger-full-access"
    )


def test_else_a_field_beyond_the_minimal_call_picks_the_full_one_where_it_is_nearer() -> None:
    assert variant("thread/start", "none", {"cwd": "/w", "ephemeral": True}) == "full"
    # One field the minimal call lacks; two the full call sends and the request does not.
    assert variant("thread/start", "none", {"cwd": "/w"}) == "minimal"
    assert variant("thread/start", "none", {"model": "m"}) == "minimal"
    assert variant("thread/start", "none", None) == "minimal"


ITEMS_BOOK = learn_book(
    record(
        "0.168.0",
        [
            cell("thread/items/list", "idle", "minimal", {"threadId": T}, result={"v": "all"}),
            cell(
                "thread/items/list",
                "idle",
                "full",
                {
                    "cursor": None,
                    "deferOutput": {},
                    "limit": 5,
                    "sortDirection": "asc",
                    "threadId": T,
                    "turnId": "{{turn}}",
                },
                result={"v": "of the turn"},
            ),
        ],
    )
)


def test_fields_sent_null_or_empty_weigh_nothing_in_how_near_a_call_is() -> None:
    # Measured on 0.168.0: a page of a thread's items with `cursor: null` lists them all,
    # not the full call's, which names a turn the request does not.
    sent: dict[str, Any] = {"cursor": None, "deferOutput": {}, "limit": 5, "threadId": ID}
    assert variant("thread/items/list", "idle", sent, ITEMS_BOOK) == "minimal"


def test_a_state_without_cells_borrows_idle_and_a_known_state_its_own() -> None:
    assert variant("thread/read", "none", {"threadId": "x"}) == "minimal"
    found = answering_cell(BOOK, "thread/read", "forked", {"threadId": "x", "more": 1})
    assert found is not None and found[0].result == {"v": "idle"}


def test_a_placeholder_met_twice_must_stand_for_the_same_text() -> None:
    assert matches({"a": T, "b": T}, {"a": ID, "b": ID}, {})
    assert not matches({"a": T, "b": T}, {"a": ID, "b": ID.replace("1", "2")}, {})
    assert not matches({"a": 1}, {"a": True}, {})


def test_an_id_placeholder_stands_for_a_uuid_only_and_a_path_one_for_any_text() -> None:
    assert not matches({"threadId": T}, {"threadId": "not-a-uuid"}, {})
    captured: dict[str, str] = {}
    assert matches({"path": "{{work}}/f"}, {"path": "any/where/f"}, captured)
    assert captured == {"work": "any/where"}


def test_an_answer_is_filled_with_the_fakes_values_and_an_unknown_placeholder_kept() -> None:
    filled = fill(
        {"id": T, "{{work}}/k": ["{{work}}/f", "{{other}}"]}, {"thread": "t", "work": "/w"}
    )
    assert filled == {"id": "t", "/w/k": ["/w/f", "{{other}}"]}


def test_a_threads_state_moves_with_the_calls_that_move_it() -> None:
    states = ThreadStates()

    def state(thread_id: str = "t", **held: bool) -> str:
        held = {"loaded": True, "active": False, "stored": True, **held}
        return states.state_of(thread_id, **held)

    assert state("nobody", loaded=False, stored=False) == "none"
    assert state(loaded=False) == "unloaded"
    assert state() == "idle" and state(active=True) == "in-flight"
    assert state(had_turns=False) == "new" and state(had_turns=False, active=True) == "in-flight"
    states.saw("thread/compact/start", {"threadId": "t"}, {})
    assert state() == "compacted"
    states.saw("thread/fork", {"threadId": "t"}, {"thread": {"id": "c"}})
    assert state("c") == "compacted"  # a fork carries its parent's history
    states.saw("thread/archive", {"threadId": "t"}, {})
    assert state(active=True) == "archived"
    states.saw("thread/unarchive", {"threadId": "t"}, {})
    assert state() == "idle"
    states.saw("thread/fork", {"threadId": "t"}, {"thread": {"id": "f"}})
    assert state("f") == "forked"
    states.saw("thread/rollback", {"threadId": "f"}, {})
    assert state("f") == "rolled-back"
    states.saw("thread/delete", {"threadId": "f"}, {})
    assert state("f") == "none"


def test_a_fork_is_answered_by_the_idle_cells_of_the_same_params() -> None:
    found = answering_cell(BOOK, "thread/read", "forked", {"threadId": "x"})
    assert found is not None and found[0].state == "idle"


GRANULAR = {"granular": {"rules": False}}
GATED = "askForApproval.granular requires experimentalApi capability"
NO_ROLLOUT = "no rollout found for thread id {{thread}}"
RESUME_BOOK = learn_book(
    record(
        "0.171.0",
        [
            cell("thread/resume", "idle", "minimal", {"threadId": T}, result={"v": "idle"}),
            cell(
                "thread/resume",
                "idle",
                "approvalPolicy=granular",
                {"threadId": T, "approvalPolicy": GRANULAR},
                error={"code": -32600, "message": GATED},
            ),
            cell(
                "thread/resume",
                "none",
                "minimal",
                {"threadId": T},
                error={"code": -32600, "message": NO_ROLLOUT},
            ),
            cell(
                "thread/resume",
                "none",
                "approvalPolicy=never",
                {"threadId": T, "approvalPolicy": "never"},
                error={"code": -32600, "message": NO_ROLLOUT},
            ),
            cell(
                "thread/resume",
                "none",
                "sandbox=danger-full-access",
                {"threadId": T, "sandbox": "danger-full-access"},
                error={"code": -32600, "message": "danger-full-access is not allowed here"},
            ),
        ],
    )
)


def test_a_value_gated_for_the_experimental_api_is_refused_in_every_state() -> None:
    sent = {"threadId": ID, "approvalPolicy": {"granular": {"rules": True}}, "cwd": "/w"}
    found = gated_refusal(RESUME_BOOK, "thread/resume", sent)
    assert found is not None and found.error is not None and found.error.message == GATED
    assert gated_refusal(RESUME_BOOK, "thread/resume", {"threadId": ID, "cwd": "/w"}) is None


def test_where_the_state_refuses_the_call_a_value_refused_in_other_words_comes_first() -> None:
    own = refused_for_its_values(
        RESUME_BOOK, "thread/resume", "none", {"threadId": ID, "sandbox": "danger-full-access"}
    )
    assert own is not None and own.variant == "sandbox=danger-full-access"
    # A value refused in the state's own words is the state's refusal: the handler's.
    never = {"threadId": ID, "approvalPolicy": "never"}
    assert refused_for_its_values(RESUME_BOOK, "thread/resume", "none", never) is None


def test_the_same_params_less_a_field_sent_false_are_the_same_call() -> None:
    words = {"code": -32600, "message": "thread not loaded: {{thread}}"}
    book = learn_book(
        record("0.165.0", [cell("thread/read", "none", "minimal", {"threadId": T}, error=words)])
    )
    found = same_params_cell(book, "thread/read", "none", {"threadId": ID, "includeTurns": False})
    assert found is not None and found[0].variant == "minimal"
    sent_true = {"threadId": ID, "includeTurns": True}
    assert same_params_cell(book, "thread/read", "none", sent_true) is None


def test_a_turn_placeholder_matches_a_turn_the_thread_has_and_unknown_one_it_has_not() -> None:
    params = {"threadId": T, "turnId": "{{unknown}}"}
    refused = {"code": -32600, "message": "expected active turn id {{unknown}}"}
    variant = "turnId of an id nobody has"
    book = learn_book(
        record("0.171.0", [cell("turn/interrupt", "in-flight", variant, params, error=refused)])
    )
    own, nobodys = "11111111-1111-4111-8111-111111111111", ID
    asked = {"threadId": ID, "turnId": nobodys}
    found = same_params_cell(book, "turn/interrupt", "in-flight", asked, frozenset({own}))
    assert found is not None and found[1]["unknown"] == nobodys
    asked_own = {"threadId": ID, "turnId": own}
    assert (
        same_params_cell(book, "turn/interrupt", "in-flight", asked_own, frozenset({own})) is None
    )


def test_a_value_refused_in_the_minimal_calls_words_does_not_stand_for_a_call_that_sends_more() -> (
    None
):
    no_goal = {"code": -32600, "message": "cannot update goal for thread {{thread}}: no goal"}
    book = learn_book(
        record(
            "0.165.0",
            [
                cell("thread/goal/set", "idle", "minimal", {"threadId": T}, error=no_goal),
                cell(
                    "thread/goal/set",
                    "idle",
                    "status=paused",
                    {"threadId": T, "status": "paused"},
                    error=no_goal,
                ),
                cell(
                    "thread/goal/set",
                    "idle",
                    "full",
                    {"threadId": T, "objective": "explore", "status": "paused", "origin": "user"},
                    result={"goal": {}},
                ),
            ],
        )
    )
    sent = {"threadId": ID, "objective": "ship it", "status": "paused"}
    found = answering_cell(book, "thread/goal/set", "idle", sent)
    assert found is not None and found[0].variant == "full"
    only_status = {"threadId": ID, "status": "paused"}
    found = answering_cell(book, "thread/goal/set", "idle", only_status)
    assert found is not None and found[0].outcome == "refused"


def test_a_value_sent_where_the_state_has_no_cell_of_it_changes_the_answer_as_idle_shows() -> None:
    read_only = {"type": "readOnly"}
    book = learn_book(
        record(
            "0.133.0",
            [
                cell(
                    "thread/fork", "idle", "minimal", {"threadId": T}, result={"sandbox": read_only}
                ),
                cell(
                    "thread/fork",
                    "idle",
                    "sandbox=danger-full-access",
                    {"threadId": T, "sandbox": "danger-full-access"},
                    result={"sandbox": {"type": "dangerFullAccess"}},
                ),
                cell(
                    "thread/fork",
                    "in-flight",
                    "minimal",
                    {"threadId": T},
                    result={"sandbox": read_only},
                ),
            ],
        )
    )
    sent = {"threadId": ID, "sandbox": "danger-full-access"}
    assert effects(book, "thread/fork", "in-flight", sent) == {
        "sandbox": {"type": "dangerFullAccess"}
    }


def test_a_boolean_sent_false_is_answered_as_the_call_without_it() -> None:
    book = learn_book(
        record(
            "0.165.0",
            [
                cell("thread/read", "archived", "minimal", {"threadId": T}, result={"v": 0}),
                cell(
                    "thread/read",
                    "archived",
                    "full",
                    {"threadId": T, "includeTurns": True},
                    result={"v": 1},
                ),
            ],
        )
    )
    for sent, expected in ((False, "minimal"), (True, "full")):
        found = answering_cell(
            book, "thread/read", "archived", {"threadId": ID, "includeTurns": sent}
        )
        assert found is not None and found[0].variant == expected


def test_a_call_with_the_same_fields_but_another_enumerated_value_is_answered_for_that_value() -> (
    None
):
    book = learn_book(
        record(
            "0.165.0",
            [
                cell("thread/turns/list", "idle", "minimal", {"threadId": T}, result={"v": 0}),
                cell(
                    "thread/turns/list",
                    "idle",
                    "full",
                    {"threadId": T, "itemsView": "notLoaded", "limit": 5},
                    result={"v": 1},
                ),
                cell(
                    "thread/turns/list",
                    "idle",
                    "itemsView=summary",
                    {"threadId": T, "itemsView": "summary"},
                    result={"v": 2},
                ),
            ],
        )
    )
    asked = {"threadId": ID, "itemsView": "summary", "limit": 3}
    found = answering_cell(book, "thread/turns/list", "idle", asked)
    assert found is not None and found[0].variant == "itemsView=summary"
    same = {"threadId": ID, "itemsView": "notLoaded", "limit": 3}
    found = answering_cell(book, "thread/turns/list", "idle", same)
    assert found is not None and found[0].variant == "full"


MCP_READ = {"server": "explore", "uri": "explore://resource"}
MCP_BOOK = learn_book(
    record(
        "0.168.0",
        [
            cell(
                "mcpServer/resource/read",
                "none",
                "minimal",
                MCP_READ,
                error={"code": -32603, "message": "unknown MCP server 'explore'"},
            ),
            cell(
                "mcpServer/resource/read",
                "none",
                "with threadId",
                {**MCP_READ, "threadId": T},
                error={"code": -32600, "message": "thread not found: {{thread}}"},
            ),
            cell(
                "mcpServer/resource/read",
                "none",
                "with connectorId",
                {**MCP_READ, "connectorId": "explore"},
                error={"code": -32603, "message": "unknown MCP server 'explore'"},
            ),
        ],
    )
)


def test_a_field_codex_checks_before_what_refused_the_minimal_call_refuses_first() -> None:
    # Measured on 0.168.0: a resource read naming a thread nobody has and a server
    # nobody has is refused for the thread.
    named = {"connectorId": "c", "server": "s", "threadId": ID, "uri": "u://r"}
    assert variant("mcpServer/resource/read", "none", named, MCP_BOOK) == "with threadId"
    unnamed = {"connectorId": "c", "server": "s", "uri": "u://r"}
    assert variant("mcpServer/resource/read", "none", unnamed, MCP_BOOK) == "with connectorId"
