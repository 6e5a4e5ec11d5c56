from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from codex_probe.harness.compiler import load_sources
from codex_probe.harness.dispatcher import (
    build_start_config,
    fingerprints_match,
    instruction_fingerprint,
    strip_legacy_mcp_suffix,
    thread_contract_fingerprint,
)


def test_fingerprint_is_a_sha256_hex_digest() -> None:
    fingerprint = instruction_fingerprint("base", "developer")
    assert len(fingerprint) == 64
    assert set(fingerprint) <= set("0123456789abcdef")


def test_fingerprint_keeps_base_and_developer_apart() -> None:
    assert instruction_fingerprint("ab", "c") != instruction_fingerprint("a", "bc")
    assert instruction_fingerprint("x", "") != instruction_fingerprint("", "x")


def test_thread_contract_fingerprint_is_that_of_the_start_config_instructions() -> None:
    sources = load_sources()
    config = build_start_config(sources, event="fresh_start")
    assert thread_contract_fingerprint(sources) == instruction_fingerprint(
        config.base_instructions,
        config.developer_instructions,
    )


def test_stored_value_with_legacy_mcp_suffix_matches_after_stripping_it() -> None:
    current = instruction_fingerprint("base", "developer")
    assert fingerprints_match(f"{current}:mcp:0f1e2d3c", current)
    assert strip_legacy_mcp_suffix(f"{current}:mcp:0f1e2d3c") == current


def test_legacy_suffix_does_not_rescue_a_different_instruction_hash() -> None:
    current = instruction_fingerprint("base", "developer")
    other = instruction_fingerprint("base", "other developer")
    assert not fingerprints_match(f"{other}:mcp:0f1e2d3c", current)


def test_only_the_known_suffix_is_stripped() -> None:
    current = instruction_fingerprint("base", "developer")
    assert not fingerprints_match(f"{current}:other:0f1e", current)
    assert not fingerprints_match(f"{current}extra", current)


@given(st.tuples(st.text(), st.text()), st.tuples(st.text(), st.text()))
def test_different_instructions_give_different_fingerprints(
    first: tuple[str, str],
    second: tuple[str, str],
) -> None:
    same = instruction_fingerprint(*first) == instruction_fingerprint(*second)
    assert same == (first == second)
