"""A text/event-stream read as the HTML standard says ("interpreting an event stream").

Lines end with CRLF, LF or a lone CR; a line starting with ":" is a comment; `field:
value` loses one space after the colon; `data` lines accumulate, joined by LF; a blank
line dispatches the event (none if no data came); an event cut off by the end of the
stream is dropped. The provider's answers are one `data:` line per event today, but a
stream that folds JSON over several `data:` lines, or adds comments and ids, reads the
same.

Written here rather than taken from PyPI: every maintained Python SSE parser comes inside
an HTTP client (httpx-sse needs httpx, aiohttp-sse-client aiohttp), the very import the
fake sheds to start in a third of codex's time.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

_LINE_END = re.compile(r"\r\n|\r|\n")


@dataclass(frozen=True)
class ServerSentEvent:
    data: str
    event: str = "message"
    last_event_id: str = ""


class EventStreamDecoder:
    """Fed the stream's text in pieces of any size, yields each event once it is complete."""

    def __init__(self) -> None:
        self._pending = ""
        self._data: list[str] = []
        self._event = ""
        self.last_event_id = ""
        self.retry_ms: int | None = None

    def feed(self, text: str) -> Iterator[ServerSentEvent]:
        buffered = self._pending + text
        lines = _LINE_END.split(buffered)
        # The last piece has no line end yet; a CR may be the first half of a CRLF.
        self._pending = lines.pop()
        if buffered.endswith("\r"):
            self._pending, lines = lines.pop() + "\r", lines
        for line in lines:
            event = self._line(line)
            if event is not None:
                yield event

    def _line(self, line: str) -> ServerSentEvent | None:
        if not line:
            return self._dispatch()
        if line.startswith(":"):
            return None
        field, colon, value = line.partition(":")
        if colon and value.startswith(" "):
            value = value[1:]
        if field == "data":
            self._data.append(value)
        elif field == "event":
            self._event = value
        elif field == "id" and "\0" not in value:
            self.last_event_id = value
        elif field == "retry" and value.isdigit():
            self.retry_ms = int(value)
        return None

    def _dispatch(self) -> ServerSentEvent | None:
        data, self._data = self._data, []
        event, self._event = self._event, ""
        if not data:
            return None
        return ServerSentEvent("\n".join(data), event or "message", self.last_event_id)
