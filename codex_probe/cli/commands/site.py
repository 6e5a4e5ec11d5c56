"""`codex-probe site --history DIR [--out DIR]`: the static site of a history folder."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from codex_probe.cli.commands.options import add_json_option
from codex_probe.cli.commands.output import output_problem
from codex_probe.cli.commands.run_folders import HISTORY, REPORTS
from codex_probe.harness.command_line import FAILED, USAGE_ERROR
from codex_probe.reporting.browser import BrowserError, screenshot
from codex_probe.reporting.history_files import HistoryViewError
from codex_probe.reporting.site.build import COMPARE, INDEX, INDEX_BUDGET, build_site
from codex_probe.reporting.site.look import STYLE_FILE

SITE = REPORTS / "site"


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "site",
        help="build the static site of a history: grid, releases, findings, compare, dataset",
        description="Build a static site from a history folder (codex-probe history's "
        "history.json and releases/): index.html (the release x finding grid, change "
        "points marked), a page per release and per finding, compare.html (any two releases, "
        "computed in the page) and data/ (the dataset: index.json, a file per release and "
        "per finding, schema.json). It works from file:// and any static host. Exit 0 "
        f"built; 1 the index weighs more than {INDEX_BUDGET // 1000} kB (the site is "
        "written); 2 usage (no readable history, an unusable --out).",
    )
    parser.add_argument(
        "--history",
        type=Path,
        default=HISTORY,
        metavar="DIR",
        help=f"the history folder (default: {HISTORY})",
    )
    parser.add_argument(
        "--out", type=Path, default=SITE, metavar="DIR", help=f"the site's folder (default: {SITE})"
    )
    parser.add_argument(
        "--screenshot",
        type=Path,
        metavar="PNG",
        help="also save a picture of the index (needs headless chromium)",
    )
    add_json_option(parser, "the site's folder, its pages and the index's weight")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    if problem := output_problem(args.out, INDEX, COMPARE, STYLE_FILE):
        print(f"codex-probe site: {problem}", file=sys.stderr)
        return USAGE_ERROR
    try:
        built = build_site(args.history, args.out)
    except HistoryViewError as error:
        print(f"codex-probe site: {error}", file=sys.stderr)
        return USAGE_ERROR
    saved = None
    if args.screenshot is not None:
        try:
            saved = screenshot((args.out / INDEX).resolve().as_uri(), args.screenshot)
        except BrowserError as error:
            print(f"codex-probe site: {error}", file=sys.stderr)
            return FAILED
    if args.json:
        document = {
            "out": str(built.out),
            "releases": built.releases,
            "findings": built.findings,
            "pages": built.pages,
            "index_bytes": built.index_bytes,
            "index_budget_bytes": INDEX_BUDGET,
            "total_bytes": built.total_bytes,
            "seconds": round(built.seconds, 2),
            "screenshot": None if saved is None else str(saved),
        }
        print(json.dumps(document, indent=2))
    else:
        print(built.describe())
        if saved is not None:
            print(f"screenshot: {saved}")
    if built.index_bytes > INDEX_BUDGET:
        print(
            f"codex-probe site: the index weighs {built.index_bytes / 1000:.1f} kB, more than "
            f"{INDEX_BUDGET // 1000} kB",
            file=sys.stderr,
        )
        return FAILED
    return 0
