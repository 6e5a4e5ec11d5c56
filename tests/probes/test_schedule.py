"""The order scenarios start in: longest last time first, untimed ones before them, what
was timed kept for the next process."""

from __future__ import annotations

from pathlib import Path

from codex_probe.probes.runner.schedule import Schedule


def test_untimed_scenarios_start_first_in_the_order_given_then_the_longest() -> None:
    schedule = Schedule()
    schedule.took("real", "short", 1.0)
    schedule.took("real", "long", 9.0)
    names = ["short", "new-a", "long", "new-b"]
    assert schedule.order("real", names) == ["new-a", "new-b", "long", "short"]


def test_each_kind_of_backend_is_timed_apart() -> None:
    schedule = Schedule()
    schedule.took("real", "errors", 9.0)
    schedule.took("real", "start", 1.0)
    schedule.took("fake", "errors", 1.0)
    schedule.took("fake", "start", 2.0)
    assert schedule.order("real", ["start", "errors"]) == ["errors", "start"]
    assert schedule.order("fake", ["errors", "start"]) == ["start", "errors"]


def test_what_one_process_timed_orders_the_next_one_s_run(tmp_path: Path) -> None:
    kept = tmp_path / "scenario-seconds.json"
    first = Schedule(kept)
    first.took("real", "start", 1.0)
    first.took("real", "errors", 9.0)
    first.keep()
    assert Schedule(kept).order("real", ["start", "errors"]) == ["errors", "start"]


def test_a_record_that_cannot_be_read_is_no_order_and_no_failure(tmp_path: Path) -> None:
    kept = tmp_path / "scenario-seconds.json"
    kept.write_text("{not json")
    schedule = Schedule(kept)
    assert schedule.order("real", ["start", "errors"]) == ["start", "errors"]
    schedule.took("real", "start", 1.0)
    schedule.took("real", "errors", 9.0)
    schedule.keep()
    assert Schedule(kept).order("real", ["start", "errors"]) == ["errors", "start"]
