"""The `surface` section of a learned profile (fake_appserver/surface_profile.py), read off
the release's surface (probes/domain/surface/): what the fake must send as the release does
for its surface to equal the real one's.

- the experimental field the handshake scenario asks for: refused without the
  experimentalApi capability and answered with it, the refusal becomes a template
  (`{method}`, `{field}`); answered both ways, nothing is gated.
"""

from __future__ import annotations

from codex_probe.fake_appserver.profile_model import ErrorAnswer
from codex_probe.fake_appserver.surface_profile import SurfaceProfile
from codex_probe.probes.domain.surface.release import (
    EXPERIMENTAL_WITH,
    EXPERIMENTAL_WITHOUT,
    HANDSHAKE_SCENARIO,
    Surface,
    experimental_key,
)
from codex_probe.probes.releases.learn.observed import Gap, Inexpressible
from codex_probe.probes.runner.scenarios import EXPERIMENTAL_FIELD

EXPERIMENTAL_METHOD = "thread/start"
FIELD = "surface.experimental_refusal"


def learn_surface(surface: Surface) -> SurfaceProfile:
    without = surface.value("initialize", experimental_key(EXPERIMENTAL_METHOD, False))
    declared = surface.value("initialize", experimental_key(EXPERIMENTAL_METHOD, True))
    if not isinstance(without, dict) or not isinstance(declared, dict):
        raise Inexpressible(
            Gap(FIELD, HANDSHAKE_SCENARIO, EXPERIMENTAL_WITHOUT, "no answer", "a measurement")
        )
    if "answered" in without:
        return SurfaceProfile(experimental_fields=[], experimental_refusal=None)
    if "answered" not in declared:
        raise Inexpressible(
            Gap(
                FIELD,
                HANDSHAKE_SCENARIO,
                EXPERIMENTAL_WITH,
                f"{EXPERIMENTAL_METHOD}.{EXPERIMENTAL_FIELD} is refused with the capability too",
                "a field refused whatever the client declares",
            )
        )
    refused = without["refused"]
    message = str(refused.get("message")).replace("{", "{{").replace("}", "}}")
    if EXPERIMENTAL_FIELD not in message:
        raise Inexpressible(
            Gap(
                FIELD,
                HANDSHAKE_SCENARIO,
                EXPERIMENTAL_WITHOUT,
                f"the refusal {refused.get('message')!r} does not name the field",
                "a refusal template without {field}",
            )
        )
    message = message.replace(EXPERIMENTAL_FIELD, "{field}").replace(
        EXPERIMENTAL_METHOD, "{method}"
    )
    return SurfaceProfile(
        experimental_fields=[f"{EXPERIMENTAL_METHOD}.{EXPERIMENTAL_FIELD}"],
        experimental_refusal=ErrorAnswer(code=int(refused["code"]), message=message),
    )
