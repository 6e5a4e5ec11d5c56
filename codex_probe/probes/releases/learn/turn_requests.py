"""Infer what codex does with turn requests that do not fit the thread's turn state.

Both read the answers of the errors scenario's JSON-RPC steps (not model requests): a
turn/start while a turn is active (`turn-start-busy`, during `turn-3`), and a
turn/interrupt with no turn active (`interrupt-idle`, whose silence the interrupt of
`turn-4` may end).
"""

from __future__ import annotations

from typing import Any

from codex_probe.fake_appserver.profile import InterruptWithoutTurn, TurnStartWhileActive
from codex_probe.probes.releases.learn.observed import Gap, Inexpressible, Inferred, Observed


def _answered_turn(result: Any) -> str:
    turn = result.get("turn") if isinstance(result, dict) else None
    return str(turn.get("id", "")) if isinstance(turn, dict) else ""


def turn_start_while_active(seen: Observed) -> Inferred[TurnStartWhileActive]:
    field = "behaviour.turn_start_while_active"
    busy = seen.step("errors", "turn-start-busy", field)
    if busy["error"] is not None:
        raise Inexpressible(
            Gap(
                field,
                "errors",
                "turn-start-busy",
                f"refused: {busy['error']['code']}: {busy['error']['message']}",
                "a TurnStartWhileActive value for a refusal",
            )
        )
    active = _answered_turn(seen.step("errors", "turn-3", field)["result"])
    answered = _answered_turn(busy["result"])
    joined = bool(seen.request("errors", "turn-3-done", field).locate("USER-BUSY"))
    second_turn = answered != active and answered in seen.turn_ids_started("errors", field)
    if not answered or not joined or second_turn:
        raise Inexpressible(
            Gap(
                field,
                "errors",
                "turn-start-busy",
                f"answered turn {answered or 'none'} (active: {active}); "
                f"{'a second turn started' if second_turn else 'no second turn started'}; "
                f"its input {'reached' if joined else 'never reached'} the active turn's "
                "last model request",
                "a TurnStartWhileActive value for a turn/start that does not join the active turn",
            )
        )
    evidence = (
        "errors turn-start-busy: no second turn started; USER-BUSY reached turn-3's last "
        "model request; the answer names "
    )
    if answered == active:
        return Inferred(TurnStartWhileActive.JOINS_ACTIVE_TURN, evidence + "the active turn")
    return Inferred(
        TurnStartWhileActive.JOINS_ACTIVE_TURN_ANSWERING_A_NEW_ID,
        evidence + "a new turn that never started",
    )


def interrupt_without_turn(seen: Observed) -> Inferred[InterruptWithoutTurn]:
    field = "behaviour.interrupt_without_turn"
    idle = seen.step("errors", "interrupt-idle", field)
    if idle["error"] is not None:
        return Inferred(
            InterruptWithoutTurn.REFUSED,
            f"errors interrupt-idle: refused {idle['error']['code']}: {idle['error']['message']}",
        )
    if idle["unanswered_within"] is None:
        raise Inexpressible(
            Gap(
                field,
                "errors",
                "interrupt-idle",
                f"answered {idle['result']!r}"[:300],
                "an InterruptWithoutTurn value for an interrupt answered without a turn",
            )
        )
    during = seen.answered_during("errors", "interrupt-idle", field)
    if during != "interrupt-turn":
        where = "never" if during is None else f"during {during}"
        raise Inexpressible(
            Gap(
                field,
                "errors",
                "interrupt-idle",
                f"no answer within {idle['unanswered_within']:g}s; answered {where}",
                "an InterruptWithoutTurn value for this silence",
            )
        )
    return Inferred(
        InterruptWithoutTurn.HELD_UNTIL_A_TURN_IS_INTERRUPTED,
        f"errors interrupt-idle: no answer within {idle['unanswered_within']:g}s; answered "
        "when interrupt-turn interrupted turn-4",
    )
