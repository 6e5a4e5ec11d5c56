"""JSON text reads the same through the fast decoder as through the json module: every
value alike, and what the json module refuses refused with a ValueError."""

from __future__ import annotations

import json
import math
import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from codex_probe.harness.jsonrpc.framing import decode_json

JSON_VALUES = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**70), max_value=2**70)
    | st.floats()
    | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=20,
)


def same(a: object, b: object) -> bool:
    """Equal, with NaN equal to NaN (json reads a bare NaN as one)."""
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b):
        return True
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    return type(a) is type(b) and a == b


@given(JSON_VALUES, st.booleans())
def test_any_json_text_reads_as_the_json_module_reads_it(value: object, as_bytes: bool) -> None:
    text = json.dumps(value, ensure_ascii=False)
    assert same(decode_json(text.encode() if as_bytes else text), json.loads(text))


@pytest.mark.parametrize("text", ['{"a": 1', "", "nul", '{"a": 1} x', b"\xff"])
def test_text_the_json_module_refuses_is_refused_with_its_error(text: str | bytes) -> None:
    with pytest.raises((json.JSONDecodeError, UnicodeDecodeError)) as refused:
        json.loads(text)
    with pytest.raises(type(refused.value), match=re.escape(str(refused.value))):
        decode_json(text)
