"""The `surface` section of a profile: what `codex-probe learn` takes from the release's
protocol surface (codex_probe/probes/domain/surface/) for the fake to send as the release does.

- `experimental_fields`: the request fields (`METHOD.FIELD`) the release refuses from a
  client that did not declare the `experimentalApi` capability at `initialize`, and
  `experimental_refusal`, how it refuses them (`{method}`, `{field}`); none where the
  release accepts the field without it.
- `incidental_notifications`: the notifications outside the thread, turn and item
  lifecycle the release sends (warnings, rate limits, a deprecation notice...), each with
  its trigger: `startup` (once initialize is answered) or the request it comes with. Their
  params are the wire templates `notification:METHOD`.
- `model_tools`: the tools a turn's model request offers, by name (`<type>` for a built-in
  one); the fake carries out exec_command and offers the others as stand-ins. The body's
  other fields the fake does not build are the wire template `model_request_fields`.

A profile without the section (learned before it existed) gates nothing, sends no such
notification and offers exec_command alone.
"""

from __future__ import annotations

import msgspec

from codex_probe.fake_appserver.profile_model import ErrorAnswer, Model

STARTUP = "startup"
# What the fake sends on its own, whatever the profile says (turns.py, tool_calls.py).
SENT_BY_THE_FAKE = ("thread/tokenUsage/updated", "error", "serverRequest/resolved")
# Wire templates of this section, optional in a wire file.
MODEL_REQUEST_FIELDS = "model_request_fields"
THREAD_READ_UNLOADED = "thread_read_unloaded"


def notification_template(method: str) -> str:
    return f"notification:{method}"


class IncidentalNotification(Model, frozen=True):
    method: str
    trigger: str  # STARTUP, or the client request method it comes with


class SurfaceProfile(Model, frozen=True):
    experimental_fields: list[str]
    experimental_refusal: ErrorAnswer | None
    incidental_notifications: list[IncidentalNotification] = msgspec.field(default_factory=list)
    model_tools: list[str] | None = None

    def refusal_of(self, method: str, params: object, declared: bool) -> tuple[int, str] | None:
        """The refusal of a request carrying a field the client may not send (None: fine)."""
        if declared or self.experimental_refusal is None or not isinstance(params, dict):
            return None
        for gated in self.experimental_fields:
            gated_method, _, field = gated.rpartition(".")
            if gated_method == method and params.get(field) is not None:
                return self.experimental_refusal.answer(method=method, field=field)
        return None

    def incidental_methods(self) -> list[str]:
        """Every notification outside the lifecycle the release sends, whatever its trigger."""
        return sorted({n.method for n in self.incidental_notifications})

    def notifications_with(self, trigger: str) -> list[str]:
        """The incidental notifications sent with `trigger`, by method."""
        return [n.method for n in self.incidental_notifications if n.trigger == trigger]
