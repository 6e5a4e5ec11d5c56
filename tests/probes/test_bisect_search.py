"""Bisection over releases: the boundary of one change, and honesty about anything else."""

from __future__ import annotations

import math
from collections.abc import Collection, Sequence

from hypothesis import given
from hypothesis import strategies as st

from codex_probe.probes.releases.bisect import BisectResult, Step, bisect_releases


def releases(count: int) -> list[str]:
    return [f"0.{100 + i}.0" for i in range(count)]


def run(
    values: Sequence[object], broken: Collection[int] = frozenset()
) -> tuple[BisectResult, list[str]]:
    names = releases(len(values))
    probed: list[str] = []

    def probe(version: str) -> Step:
        probed.append(version)
        index = names.index(version)
        if index in broken:
            return Step(version, broken="crashed")
        return Step(version, values[index], (f"evidence of {version}",))

    return bisect_releases(names, probe), probed


@given(count=st.integers(2, 120), data=st.data())
def test_one_change_is_found_exactly_with_about_log2_probes(
    count: int, data: st.DataObject
) -> None:
    change = data.draw(st.integers(1, count - 1))
    values = ["good"] * change + ["bad"] * (count - change)
    result, probed = run(values)
    assert result.found
    assert result.first_changed is not None and result.last_same is not None
    assert result.first_changed.version == releases(count)[change]
    assert result.last_same.version == releases(count)[change - 1]
    assert len(probed) == len(set(probed))  # no release probed twice
    assert len(probed) <= math.ceil(math.log2(count)) + 4  # ends, search, two neighbours


def test_the_same_value_at_both_ends_is_no_change() -> None:
    result, probed = run(["x", "y", "x"])
    assert result.no_change and not result.found
    assert len(probed) == 2


def test_a_value_neither_good_nor_bad_says_the_history_flips_instead_of_naming_a_boundary() -> None:
    result, _ = run(["a", "a", "a", "c", "b", "b", "b", "b"])
    assert not result.found
    assert any("0.103.0" in flip and '"c"' in flip for flip in result.flips)


def test_a_change_and_back_next_to_the_boundary_is_caught_by_the_neighbours() -> None:
    # good, then bad for one release, good again, then bad for good: two boundaries.
    values = ["a"] * 4 + ["b"] + ["a"] + ["b"] * 2
    result, probed = run(values)
    assert not result.found
    assert result.flips, probed


@given(values=st.lists(st.sampled_from("ab"), min_size=2, max_size=40))
def test_a_boundary_it_names_is_always_a_real_change_from_good_to_bad(values: list[str]) -> None:
    result, _ = run(values)
    if result.found:
        assert result.first_changed is not None and result.last_same is not None
        names = releases(len(values))
        low = names.index(result.last_same.version)
        assert names.index(result.first_changed.version) == low + 1
        assert (values[low], values[low + 1]) == (values[0], values[-1])


def test_a_broken_release_is_skipped_and_a_neighbour_probed_instead() -> None:
    values = ["a"] * 6 + ["b"] * 4
    result, probed = run(values, broken={4})
    assert result.found
    assert result.first_changed is not None and result.first_changed.version == "0.106.0"
    assert "0.104.0" in probed and "0.105.0" in probed


def test_a_broken_release_right_at_the_boundary_leaves_it_unresolved() -> None:
    result, _ = run(["a"] * 5 + ["b"] * 5, broken={4})
    assert not result.found
    assert result.unresolved is not None
    assert "between 0.103.0 and 0.105.0" in result.unresolved and "(0.104.0)" in result.unresolved


def test_when_every_release_at_the_boundary_broke_it_says_so() -> None:
    result, _ = run(["a", "a", "b", "b", "b"], broken={1, 2, 3})
    assert not result.found
    assert result.unresolved is not None
    assert "between 0.100.0 and 0.104.0" in result.unresolved


def test_a_broken_end_is_no_bisection_at_all() -> None:
    result, _ = run(["a", "b"], broken={0})
    assert result.unresolved == "0.100.0 gave no value: crashed"
