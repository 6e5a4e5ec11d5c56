"""Every older spelling of an option still works: the same namespace as the scheme's
spelling (codex_probe/cli/commands/options.py), and one line on stderr naming the new one."""

from __future__ import annotations

from pathlib import Path

import pytest

from codex_probe.cli.main import build_parser

RANGE = ["--from", "1.0.0", "--to", "2.0.0"]
# (old words, the scheme's words, the one line the old ones print)
OLD_AND_NEW = [
    (
        ["install", "0.150.0"],
        ["install", "--codex", "0.150.0"],
        "codex-probe install: VERSION (positional) is deprecated; use --codex VERSION",
    ),
    (
        ["schema", "0.150.0", "--json"],
        ["schema", "--codex", "0.150.0", "--json"],
        "codex-probe schema: VERSION (positional) is deprecated; use --codex VERSION",
    ),
    (
        ["learn", "0.150.0"],
        ["learn", "--codex", "0.150.0"],
        "codex-probe learn: VERSION (positional) is deprecated; use --codex VERSION",
    ),
    (
        ["validate", "0.150.0", "t.jsonl"],
        ["validate", "--codex", "0.150.0", "t.jsonl"],
        "codex-probe validate: VERSION (positional) is deprecated; use --codex VERSION",
    ),
    (
        ["diff", "0.150.0", "0.171.0", "--json"],
        ["diff", "--from", "0.150.0", "--to", "0.171.0", "--json"],
        "codex-probe diff: A B (positional) is deprecated; use --from A --to B",
    ),
    (
        ["schema-diff", "0.120.0", "0.171.0"],
        ["schema-diff", "--from", "0.120.0", "--to", "0.171.0"],
        "codex-probe schema-diff: V1 V2 (positional) is deprecated; use --from V1 --to V2",
    ),
    (
        ["bisect", "base-developer-placement", "--good", "0.120.0", "--bad", "0.171.0"],
        ["bisect", "base-developer-placement", "--from", "0.120.0", "--to", "0.171.0"],
        "codex-probe bisect: --good is deprecated; use --from VERSION\n"
        "codex-probe bisect: --bad is deprecated; use --to VERSION",
    ),
    (
        [
            "bisect",
            "--surface",
            "answers errors A thread/start",
            "--from",
            "1.0.0",
            "--to",
            "2.0.0",
        ],
        ["bisect", "--surface-key", "answers errors A thread/start", *RANGE],
        "codex-probe bisect: --surface is deprecated; use --surface-key KEY",
    ),
    (
        ["cache", "prune", "--keep", "2"],
        ["cache", "prune", "--keep-installs", "2"],
        "codex-probe cache prune: --keep is deprecated; use --keep-installs N",
    ),
]


@pytest.mark.parametrize(("old", "new", "said"), OLD_AND_NEW, ids=[o[0][0] for o in OLD_AND_NEW])
def test_an_old_spelling_parses_as_the_new_one_and_says_so_in_one_line(
    old: list[str], new: list[str], said: str, capsys: pytest.CaptureFixture[str]
) -> None:
    scheme = build_parser(new).parse_args(new)
    assert capsys.readouterr().err == ""
    older = build_parser(old).parse_args(old)
    assert capsys.readouterr().err == said + "\n"
    assert vars(older) == vars(scheme)


def test_schema_diff_s_old_alluredir_still_writes_there(tmp_path: Path) -> None:
    words = ["schema-diff", "--from", "0.1.0", "--to", "0.2.0", "--alluredir", str(tmp_path)]
    args = build_parser(words).parse_args(words)
    assert args.alluredir == tmp_path and args.out is None
