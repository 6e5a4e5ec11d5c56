"""The fake reads its provider's text/event-stream as the HTML standard says."""

from __future__ import annotations

from codex_probe.fake_appserver.event_stream import EventStreamDecoder, ServerSentEvent


def events_of(*pieces: str) -> list[ServerSentEvent]:
    decoder = EventStreamDecoder()
    return [event for piece in pieces for event in decoder.feed(piece)]


def test_data_lines_of_one_event_join_with_a_line_feed() -> None:
    assert events_of('data: {"a":\ndata:  1}\n\n') == [ServerSentEvent('{"a":\n 1}')]


def test_comments_ids_retry_and_unknown_fields_are_read_or_skipped() -> None:
    decoder = EventStreamDecoder()
    stream = ": keep-alive\nid: 7\nretry: 1500\nfoo: bar\nevent: delta\ndata: x\n\n"
    assert list(decoder.feed(stream)) == [ServerSentEvent("x", "delta", "7")]
    assert decoder.retry_ms == 1500


def test_crlf_lone_cr_and_lf_all_end_a_line_even_split_between_pieces() -> None:
    assert events_of("data: a\r", "\n\r\ndata: b\r\rdata: c\n", "\n") == [
        ServerSentEvent("a"),
        ServerSentEvent("b"),
        ServerSentEvent("c"),
    ]


def test_a_blank_line_without_data_and_an_event_cut_off_by_the_end_give_nothing() -> None:
    assert events_of("event: ping\n\n", "data: never finished\n") == []


def test_one_space_after_the_colon_is_dropped_and_a_field_may_have_no_colon() -> None:
    assert events_of("data:  two spaces\ndata\n\n") == [ServerSentEvent(" two spaces\n")]
