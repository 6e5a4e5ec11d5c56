"""The continuation inbox keeps exact bodies per thread and gives each out once."""

from __future__ import annotations

from codex_probe.harness.driver import ContinuationInbox


def test_held_bodies_come_out_exactly_once_in_arrival_order() -> None:
    inbox = ContinuationInbox()
    inbox.hold("t1", "first\n")
    inbox.hold("t2", "other thread")
    inbox.hold("t1", "  second")
    assert [m.body for m in inbox.pending("t1")] == ["first\n", "  second"]
    taken = inbox.take("t1")
    assert [m.body for m in taken] == ["first\n", "  second"]
    assert inbox.take("t1") == [] and inbox.pending("t1") == []
    assert len(inbox) == 1 and [m.body for m in inbox.take("t2")] == ["other thread"]


def test_pending_is_a_copy_that_cannot_empty_the_inbox() -> None:
    inbox = ContinuationInbox()
    inbox.hold("t", "body")
    inbox.pending("t").clear()
    assert [m.body for m in inbox.take("t")] == ["body"]
