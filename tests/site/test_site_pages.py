"""The static site of a history: its pages, their links, the index's weight, the command."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from html.parser import HTMLParser
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

import pytest

from codex_probe.probes.domain.watch import WATCHED
from codex_probe.reporting.history_view import HistoryView
from codex_probe.reporting.site.build import INDEX_BUDGET, BuiltSite, build_site
from codex_probe.reporting.site.compare_page import compare_data
from tests.cli import codex_probe
from tests.site.recorded import (
    AFTER,
    BEFORE,
    MOVED,
    QUEUED,
    STEERED,
    Findings,
    every_finding_id,
    placement,
    queued_steer,
    surface_files,
    write_history,
)

ISSUES = [f"openai/codex#{n}" for n in (41491, 19045, 40805, 28495, 35810, 45361, 31438)]
ASPECTS = ["notifications", "answers", "refusals", "model_requests", "sse_events", "schema",
           "initialize", "experimental_api"]  # fmt: skip


class Links(HTMLParser):
    """Every href and src of a page, and the ids it defines."""

    def __init__(self) -> None:
        super().__init__()
        self.targets: list[str] = []
        self.ids: set[str] = set()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        for name, found in attrs:
            if name in ("href", "src") and found:
                self.targets.append(found)
            if name == "id" and found:
                self.ids.add(found)


def parsed(page: Path) -> Links:
    links = Links()
    links.feed(page.read_text(encoding="utf-8"))
    return links


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    history = write_history(
        tmp_path_factory.mktemp("history"),
        ("0.160.0", BEFORE, MOVED, AFTER),
        unavailable=["0.161.1"],
    )
    out = tmp_path_factory.mktemp("site")
    build_site(history, out)
    return out


def whole_range(version: str) -> Findings:
    """Every finding with values as long as the real ones, changing now and then."""
    number = int(version.split(".")[1])
    found = placement("0.162.0" if number >= 162 else "0.161.0")
    for finding_id, (verdict, observed) in list(found.items()):
        observed = {**observed, "evidence_like": "input[3] role=developer part 0 " * 3}
        found[finding_id] = ("changed" if number % 17 == 0 else verdict, observed)
    # Every watched bug comes, is fixed and comes back, each at releases of its own.
    for at, watched in enumerate(WATCHED):
        present = 130 + 3 * at <= number < 160 + 3 * at or number >= 185 + at
        for sign in watched.signs:
            verdict, observed = found[sign.finding]
            shown = {**observed, **sign.values}
            if not present:  # the first value otherwise: the sign does not show
                first = next(iter(sign.values))
                shown[first] = not sign.values[first]
            found[sign.finding] = (verdict, shown)
    return found


def test_the_index_of_a_history_of_the_whole_range_weighs_at_most_500_kB(tmp_path: Path) -> None:
    versions = [f"0.{n}.0" for n in range(120, 196)]  # 76 releases, as many as 0.120.0..0.171.0
    history = write_history(
        tmp_path / "history",
        versions,
        recorded=whole_range,
        with_files=False,
        surface=lambda v: {
            "aspects": {a: f"sha256:{a}{int(v.split('.')[1]) // 9}" for a in ASPECTS}
        },
    )
    rows = len(every_finding_id()) + len(ASPECTS) + len(ISSUES)
    computed = build_site(history, tmp_path / "site")
    index = (tmp_path / "site" / "index.html").read_text()
    assert computed.releases == 76 and f"Watched upstream bugs ({len(ISSUES)})" in index
    assert index.count('<td class="wp cv">') == 2 * len(ISSUES)  # came, came back
    assert index.count('<td class="wa cv">') == len(ISSUES)  # fixed
    assert rows == len(every_finding_id()) + 8 + 7
    assert computed.index_bytes <= INDEX_BUDGET, computed.describe()
    # A history of its own change points: a surface that changes in many keys at once.
    document = json.loads((history / "history.json").read_text())
    document["change_points"] = [
        {"kind": "surface", "key": f"schema.methods.method-{n}", "first_changed": v,
         "last_same": "0.120.0", "before": None, "after": {"params": ["threadId"] * 5}}
        for v in versions[1:] for n in range(40)
    ]  # fmt: skip
    (history / "history.json").write_text(json.dumps(document))
    given = build_site(history, tmp_path / "site")
    assert given.index_bytes <= INDEX_BUDGET, given.describe()


def test_every_link_of_every_page_names_a_file_of_the_site_and_an_anchor_it_has(
    site: Path,
) -> None:
    pages = sorted(site.rglob("*.html"))
    assert len(pages) == 2 + 5 + len(every_finding_id())
    for page in pages:
        for target in parsed(page).targets:
            address = urlsplit(target)
            if address.scheme in ("http", "https", "data"):
                continue
            assert not address.scheme and not target.startswith("/"), f"{page}: {target}"
            path = (page.parent / unquote(address.path)).resolve() if address.path else page
            assert path.is_file(), f"{page.relative_to(site)} links {target}: no such file"
            if address.fragment and path.suffix == ".html" and "=" not in address.fragment:
                assert address.fragment in parsed(path).ids, f"{page}: {target}: no such anchor"


def cells(index: Path) -> Iterator[tuple[str, str]]:
    """(finding, release) of each cell of the grid that links a finding page."""
    for target in parsed(index).targets:
        if found := re.fullmatch(r"findings/(.+)\.html#v(.+)", target):
            yield found[1], found[2]


def test_each_cell_of_the_grid_leads_to_its_finding_at_its_release(site: Path) -> None:
    linked = set(cells(site / "index.html"))
    assert ("base-developer-placement", MOVED) in linked
    assert len(linked) == 4 * len(every_finding_id())  # not the release that cannot run
    page = site / "findings" / "base-developer-placement.html"
    assert {f"v{v}" for v in ("0.160.0", BEFORE, "0.161.1", MOVED, AFTER)} <= parsed(page).ids


def test_the_grid_shows_state_by_symbol_and_marks_the_change_points(site: Path) -> None:
    index = (site / "index.html").read_text()
    steer = f'<td class="c cv"><a href=findings/steer-mid-answer-keeps-reply.html#v{MOVED}>Δ</a>'
    moved = f'<td class="h co"><a href=findings/base-developer-placement.html#v{MOVED}>✓</a>'
    assert steer in index and moved in index
    assert "<td class=u><span>\u2013</span>" in index  # not installable
    assert "Change points (" in index and "computed from the releases" in index
    assert "Protocol surface" not in index


def test_surface_rows_appear_when_the_history_records_them(tmp_path: Path) -> None:
    given = [{"kind": "surface", "key": "schema.methods", "first_changed": MOVED,
              "last_same": BEFORE, "before": "sha256:1", "after": "sha256:2"}]  # fmt: skip
    history = write_history(
        tmp_path / "history",
        surface=lambda v: {"aspects": {"schema": "sha256:1" if v == BEFORE else "sha256:2"}},
        change_points=given,
    )  # fmt: skip
    build_site(history, tmp_path / "site")
    index = (tmp_path / "site" / "index.html").read_text()
    assert "Protocol surface: one row per aspect (1)" in index
    assert f"<td class=sc><a href=releases/{MOVED}.html#surface>◆</a>" in index
    assert "Change points (1, history.json)" in index


def test_the_watch_band_shows_each_watched_bug_s_state_by_symbol_and_where_it_came_back(
    tmp_path: Path,
) -> None:
    recorded = queued_steer({"0.160.0": False, BEFORE: None, MOVED: True, AFTER: True})
    history = write_history(tmp_path / "history", ("0.160.0", BEFORE, MOVED, AFTER),
                            recorded=recorded)  # fmt: skip
    build_site(history, tmp_path / "site")
    index = (tmp_path / "site" / "index.html").read_text()
    assert f"Watched upstream bugs ({len(ISSUES)})" in index
    assert "https://github.com/openai/codex/issues/40805" in index
    cell = f"<a href=findings/{STEERED}.html#v{{}}>{{}}</a>"
    assert "<td class=wa>" + cell.format("0.160.0", "○") in index
    assert "<td class=wu>" + cell.format(BEFORE, "?") in index  # undecided: no change
    assert '<td class="wp cv">' + cell.format(MOVED, "●") in index
    assert "<td class=wp>" + cell.format(AFTER, "●") in index
    assert "bug undecided: its findings gave no verdict" in index  # the legend
    assert f"<br>back in {MOVED} (absent in 0.160.0)" in index
    release = (tmp_path / "site" / "releases" / f"{BEFORE}.html").read_text()
    assert f"broken: {STEERED} is broken" in release
    moved = (tmp_path / "site" / "releases" / f"{MOVED}.html").read_text()
    assert "watch: undecided → present" in moved  # since the release before: undecided


def test_a_finding_page_lists_the_upstream_issues_its_finding_decides(tmp_path: Path) -> None:
    recorded = queued_steer({BEFORE: False, MOVED: True, AFTER: False})
    build_site(write_history(tmp_path / "history", recorded=recorded), tmp_path / "site")
    pages = tmp_path / "site" / "findings"
    steered = (pages / f"{STEERED}.html").read_text()
    assert f'<a href="https://github.com/openai/codex/issues/40805">{QUEUED}</a>' in steered
    assert f"<li>back in {MOVED} (absent in {BEFORE})</li>" in steered
    assert f"<li>fixed in {AFTER} (present in {MOVED})</li>" in steered
    release = (tmp_path / "site" / "releases" / f"{AFTER}.html").read_text()
    assert f"fixed in {AFTER} (present in {MOVED})" in release  # the watch list's words
    assert f'class="x wp cv" title="{MOVED}: present: {STEERED}:' in steered
    # Two findings decide openai/codex#19045; each page names the other.
    fork = (pages / "fork-refresh.html").read_text()
    assert "openai/codex#19045" in fork and "Also decided by: resume-refresh-cold." in fork
    other = (pages / "base-developer-placement.html").read_text()
    assert "This finding decides no watched upstream issue." in other


def test_a_release_page_says_what_changed_since_the_release_before_and_offers_its_bundles(
    site: Path,
) -> None:
    page = (site / "releases" / f"{MOVED}.html").read_text()
    assert f"Since {BEFORE}, the release before" in page
    assert "top-level instructions field" in page and "input[0] role=developer part 0" in page
    bundle = f"../data/releases/{MOVED}/repro/steer-mid-answer-keeps-reply-{MOVED}.zip"
    assert f'href="{bundle}"' in page
    assert "0.171.0 is not in this history" in page
    assert "developer_message_first" in page  # the learned profile's behaviour
    gone = (site / "releases" / "0.161.1.html").read_text()
    assert "Not installable" in gone and "Missing optional dependency" in gone


def test_a_finding_page_shows_each_change_point_with_the_evidence_of_both_sides(
    site: Path,
) -> None:
    page = (site / "findings" / "steer-mid-answer-keeps-reply.html").read_text()
    assert f'id="change-{MOVED}"' in page
    assert f"real {BEFORE} step turn-1" in page and f"real {MOVED} step turn-1" in page
    assert "A turn/steer that arrives while the model is answering" in page
    assert "spec section 4.6" in page
    # An observed value that moved under the same verdict: one row per value that moved,
    # not the whole observed object once more.
    placement = (site / "findings" / "base-developer-placement.html").read_text()
    assert "<tr><td>base_at</td>" in placement and "<tr><td>observed</td>" not in placement


def test_the_compare_page_carries_the_values_of_every_release_with_ids_masked(
    site: Path,
) -> None:
    page = (site / "compare.html").read_text()
    data = json.loads(re.search(r'id="compare-data">(.*?)</script>', page, re.S)[1])  # type: ignore[index]
    assert data["releases"] == ["0.160.0", BEFORE, "0.161.1", MOVED, AFTER]
    assert list(data["unavailable"]) == ["0.161.1"]
    cell = data["cells"][MOVED]["error-resume-unknown-thread"]
    assert data["values"][cell[1]]["message"] == '"no rollout found for thread id <id>"'


def test_a_text_of_the_history_reaches_the_pages_as_text_never_as_markup(tmp_path: Path) -> None:
    def hostile(version: str) -> Findings:
        found = placement(version)
        found["resume-refresh-cold"] = ("changed", {"message": "<script>alert(1)</script>"})
        return found

    build_site(write_history(tmp_path / "history", recorded=hostile), tmp_path / "site")
    for page in (tmp_path / "site").rglob("*.html"):
        assert "<script>alert" not in page.read_text(), page


def test_site_writes_the_site_and_says_what_its_index_weighs(tmp_path: Path) -> None:
    history = write_history(tmp_path / "history")
    done = codex_probe("site", "--history", str(history), "--out", str(tmp_path / "site"))
    assert done.returncode == 0, done.stderr
    assert re.search(r"index \d+\.\d kB with its style sheet, of at most 500 kB", done.stdout)
    assert (tmp_path / "site" / "index.html").is_file()
    assert (tmp_path / "site" / "data" / "index.json").is_file()


def test_site_without_a_history_is_a_usage_error_in_one_line(tmp_path: Path) -> None:
    done = codex_probe("site", "--history", str(tmp_path), "--out", str(tmp_path / "site"))
    assert done.returncode == 2
    assert done.stderr == f"codex-probe site: {tmp_path / 'history.json'}: no such history file\n"


def test_site_into_a_file_is_a_usage_error_found_before_anything_is_read(tmp_path: Path) -> None:
    (tmp_path / "taken").write_text("")
    done = codex_probe("site", "--history", str(tmp_path), "--out", str(tmp_path / "taken"))
    assert done.returncode == 2
    assert "is a file, not a folder" in done.stderr


def test_a_rebuild_replaces_only_what_the_site_writes(site: Path, tmp_path: Path) -> None:
    out = tmp_path / "site"
    history = write_history(tmp_path / "history")
    build_site(history, out)
    (out / "CNAME").write_text("codex.example.org\n")
    (out / "findings" / "retired-finding.html").write_text("old")
    built: BuiltSite = build_site(history, out)
    assert (out / "CNAME").is_file()
    assert not (out / "findings" / "retired-finding.html").exists()
    assert built.pages == 2 + 3 + len(every_finding_id())


def test_a_release_where_dozens_of_rows_changed_lists_a_dozen_under_the_grid_and_links_the_rest(
    tmp_path: Path,
) -> None:
    def all_changed(version: str) -> Findings:
        return {
            f: ("changed" if version == MOVED else v, o) for f, (v, o) in placement(version).items()
        }

    build_site(write_history(tmp_path / "history", recorded=all_changed), tmp_path / "site")
    index = (tmp_path / "site" / "index.html").read_text()
    block = index[index.index(f'<li><a href="releases/{MOVED}.html"><b>') :]
    block = block[: block.index("</ul></li>")]
    assert block.count("(verdict)") == 12
    more = re.search(rf'<li><a href="releases/{re.escape(MOVED)}.html">and (\d+) more rows', block)
    assert more is not None and int(more[1]) > 12


def test_a_surface_change_reads_as_its_keys_and_values_and_the_diff_that_lists_them(
    tmp_path: Path,
) -> None:
    def schema(version: str) -> dict[str, dict[str, Any]]:
        methods = ["thread/start"] + (
            ["thread/fork", "thread/rollback"] if version != BEFORE else []
        )
        return {"schema": {f"client request {m}": {"params": {}} for m in methods}}

    folder = tmp_path / "history"
    site = tmp_path / "site"
    build_site(write_history(folder, surface=surface_files(folder, schema)), site)
    index = (site / "index.html").read_text()
    assert (
        "schema (surface): 2 key(s) changed (2 INFO), e.g. INFO method-added: "
        "<code>client request thread/fork</code>"
    ) in index
    assert "params" not in index  # the values are the release page's and compare's
    release = (site / "releases" / f"{MOVED}.html").read_text()
    assert "2 key(s) differ:<ul class='keys'>" in release
    assert (
        "<li><b>2 alike: client request thread/fork; client request thread/rollback</b><br>"
        "<code>new: {&quot;params&quot;: {}}</code></li>"
    ) in release
    assert (
        f"<code>codex-probe diff --history HISTORY_DIR --from {BEFORE} --to {MOVED}</code>"
        in release
    )
    assert "sha256:" not in release.split("Every verdict")[0]
    # The compare page carries each key's value per release, each distinct value once.
    data = compare_data(HistoryView.load(folder))
    assert "schema client request thread/fork" in data["keys"]
    fork = data["keys"].index("schema client request thread/fork")
    assert data["key_cells"][BEFORE][fork] == -1
    assert json.loads(data["key_values"][data["key_cells"][MOVED][fork]]) == {"params": {}}
