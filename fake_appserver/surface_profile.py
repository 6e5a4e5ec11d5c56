"""The `surface` section of a profile: what `codex-probe learn` takes from the release's
protocol surface (probes/domain/surface/) for the fake to send as the release does.

- `experimental_fields`: the request fields (`METHOD.FIELD`) the release refuses from a
  client that did not declare the `experimentalApi` capability at `initialize`, and
  `experimental_refusal`, how it refuses them (`{method}`, `{field}`); none where the
  release accepts the field without it.
"""

from __future__ import annotations

from codex_probe.fake_appserver.profile_model import ErrorAnswer, Model


class SurfaceProfile(Model, frozen=True):
    experimental_fields: list[str]
    experimental_refusal: ErrorAnswer | None

    def refusal_of(self, method: str, params: object, declared: bool) -> tuple[int, str] | None:
        """The refusal of a request carrying a field the client may not send (None: fine)."""
        if declared or self.experimental_refusal is None or not isinstance(params, dict):
            return None
        for gated in self.experimental_fields:
            gated_method, _, field = gated.rpartition(".")
            if gated_method == method and params.get(field) is not None:
                return self.experimental_refusal.answer(method=method, field=field)
        return None
