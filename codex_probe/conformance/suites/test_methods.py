"""A method the server does not know: refused explicitly, in a shape no fallback reads."""

from __future__ import annotations

import pytest

from codex_probe.conformance.marks import check
from codex_probe.conformance.shapes import UNKNOWN_METHOD, expect_refusal
from codex_probe.rig.session import Session

pytestmark = pytest.mark.asyncio

UNKNOWN = "no/such/method"


@check(
    "CONF-METHOD-001",
    title="an unknown method is refused -32600 'Invalid request: unknown variant `m`, ...'",
    protects="driver rule: an unknown method is neither not-found nor invalid-thread",
)
async def test_an_unknown_method_is_refused_as_an_invalid_request(
    codex_session: Session,
) -> None:
    await codex_session.open()
    codex_session.off_schema_methods.add(UNKNOWN)  # sent off-schema on purpose
    await expect_refusal(codex_session.request(UNKNOWN, {}), UNKNOWN_METHOD, method=UNKNOWN)
