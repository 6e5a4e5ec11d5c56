"""The README and the pages under docs/: short enough to read, every page reachable from the
README, every link leading somewhere, and every `codex-probe` command they show runs as
written (parsed by the real argument parser, with no old spelling; the cheap ones run)."""

from __future__ import annotations

import re
import shlex
from collections.abc import Iterator
from pathlib import Path

import pytest

from codex_probe.cli.main import build_parser
from tests.cli import codex_probe

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
DOCS = ROOT / "docs"
PAGES = sorted(DOCS.glob("*.md"))
# The PyPI page is not the README's: it is the package's long description.
NOT_LINKED = {DOCS / "pypi.md"}
FENCE = re.compile(r"^```[^\n]*\n(.*?)^```", re.S | re.M)
LINK = re.compile(r"\]\(([^)\s]+)\)")
# Commands cheap enough to run here as shown: nothing installed, nothing probed.
CHEAP = {"findings", "compile"}


def shown_commands(page: Path) -> Iterator[list[str]]:
    """Each `codex-probe ...` line of the page's code blocks, as words (comments dropped)."""
    for block in FENCE.findall(page.read_text(encoding="utf-8")):
        for line in block.splitlines():
            line = line.strip().removeprefix("$ ")
            if line.startswith("codex-probe "):
                yield shlex.split(line, comments=True)[1:]


EVERY_COMMAND = [
    (page.relative_to(ROOT).as_posix(), words)
    for page in [README, *PAGES]
    for words in shown_commands(page)
]


def test_the_readme_is_a_page_a_newcomer_reads_in_five_minutes() -> None:
    text = README.read_text(encoding="utf-8")
    assert len(text.splitlines()) < 300
    first_screen = "\n".join(text.splitlines()[:25])
    assert "It is for" in first_screen and "It answers" in first_screen
    assert text.index("./nox -s probe") < text.index("./nox -s tests")


def test_every_page_under_docs_is_linked_from_the_readme() -> None:
    linked = {(ROOT / target).resolve() for target in LINK.findall(README.read_text())}
    assert [p.name for p in PAGES if p not in linked and p not in NOT_LINKED] == []


def slug(heading: str) -> str:
    """GitHub's anchor of a heading: lower case, punctuation dropped, spaces as hyphens."""
    kept = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return kept.replace(" ", "-")


def anchors(page: Path) -> set[str]:
    text = FENCE.sub("", page.read_text(encoding="utf-8"))
    return {slug(line.lstrip("#")) for line in text.splitlines() if line.startswith("#")}


@pytest.mark.parametrize("page", [README, *PAGES], ids=lambda p: p.name)
def test_every_link_of_a_page_leads_to_a_file_and_heading_that_exist(page: Path) -> None:
    broken = []
    for target in LINK.findall(FENCE.sub("", page.read_text(encoding="utf-8"))):
        if re.match(r"[a-z]+:", target):
            continue  # http(s), mailto: not ours to check offline
        path, _, anchor = target.partition("#")
        file = (page.parent / path).resolve() if path else page
        missing_anchor = file.exists() and file.suffix == ".md" and anchor != ""
        if not file.exists() or (missing_anchor and anchor not in anchors(file)):
            broken.append(target)
    assert broken == []


def test_the_pypi_page_has_no_link_a_package_index_cannot_follow() -> None:
    text = (DOCS / "pypi.md").read_text(encoding="utf-8")
    assert [t for t in LINK.findall(text) if not t.startswith("https://")] == []


def test_the_readme_and_the_docs_show_commands() -> None:
    assert len(EVERY_COMMAND) > 40
    assert {words[0] for _, words in EVERY_COMMAND} >= {"probe", "diff", "gate", "findings"}


@pytest.mark.parametrize(
    ("page", "words"), EVERY_COMMAND, ids=[f"{p}:{' '.join(w)}" for p, w in EVERY_COMMAND]
)
def test_every_command_shown_parses_as_written_in_the_scheme(
    page: str, words: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    build_parser(words).parse_args(words)  # a usage error exits: the test fails with it
    assert capsys.readouterr().err == ""  # no old spelling


CHEAP_COMMANDS = sorted(
    {" ".join(words): words for _, words in EVERY_COMMAND if words[0] in CHEAP}.values()
)


@pytest.mark.parametrize("words", CHEAP_COMMANDS, ids=[" ".join(w) for w in CHEAP_COMMANDS])
def test_every_cheap_command_shown_runs_as_written(words: list[str]) -> None:
    done = codex_probe(*words, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout
