"""`codex-probe report [--out DIR]`: DIR/allure-results -> DIR/html/index.html, + summary.md."""

from __future__ import annotations

import argparse
import contextlib
import json
import sys
from pathlib import Path
from typing import Any

from codex_probe.cli.commands.failures import CommandFailed
from codex_probe.cli.commands.options import add_json_option, codex_version, deprecated
from codex_probe.cli.commands.output import output_problem
from codex_probe.cli.commands.run_folders import run_folder
from codex_probe.harness.codex.npm import NpmError
from codex_probe.harness.codex.versions import DEFAULT_CODEX_VERSION
from codex_probe.harness.command_line import FAILED, NO_VERDICT, USAGE_ERROR
from codex_probe.harness.tool import TOOL
from codex_probe.probes.domain.verdict_file import VerdictFileError, VerdictReport, load_verdict
from codex_probe.reporting.allure_install import ALLURE_VERSION, AllureInstallError, install_allure
from codex_probe.reporting.allure_report import (
    REPORT_NAME,
    ReportError,
    generate_html,
    require_results,
)
from codex_probe.reporting.browser import BrowserError, screenshot
from codex_probe.reporting.categories import report_environment, write_results_metadata
from codex_probe.reporting.gate import evaluate
from codex_probe.reporting.history_link import (
    HISTORY_PAGE,
    find_history,
    link_results,
    summary_line,
)
from codex_probe.reporting.summary import render_summary


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "report",
        help="write the Allure HTML report (and summary.md) of a probe run",
        description="Turn DIR/allure-results into DIR/html/index.html with the pinned Allure "
        f"{ALLURE_VERSION} (installed from npm into the cache once; offline after that), and "
        "DIR/verdict.json, if there is one, into DIR/summary.md. Exit 0; 1: the report could "
        "not be made; 2: usage; 3: the verdict is incomplete (the probe run ended early).",
    )
    parser.add_argument(
        "--codex",
        type=codex_version,
        action="append",
        default=[],
        metavar="VERSION",
        help="the versions of the run to report (repeatable): its folder is reports/VERSION "
        "(reports/V1+V2 for several), as codex-probe probe wrote it",
    )
    parser.add_argument(
        "--out",
        type=Path,
        metavar="DIR",
        help="the run's folder, if not the one --codex names (default: reports/"
        f"{DEFAULT_CODEX_VERSION})",
    )
    parser.add_argument(
        "--history",
        type=Path,
        metavar="DIR",
        help="a history folder (codex-probe history) whose grid, history.html, the report "
        "links (default: OUT/history/ or OUT/../history/ when one holds history.html)",
    )
    parser.add_argument(
        "--screenshot",
        type=Path,
        metavar="PNG",
        help="also save a picture of the report's first page (needs headless chromium)",
    )
    add_json_option(parser, "the files written, their size and the gate's decision")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    """The report; with --json, its lines go to stderr and the answer alone to stdout."""
    if not args.json:
        return _run(args)
    answer: dict[str, Any] = {}
    with contextlib.redirect_stdout(sys.stderr):
        code = _run(args, answer)
    print(json.dumps({"exit_code": code, **answer}, indent=2))
    return code


def _run(args: argparse.Namespace, answer: dict[str, Any] | None = None) -> int:
    said = {} if answer is None else answer
    out: Path = args.out or run_folder(args.codex)
    history = find_history(out) if args.history is None else history_page(args.history)
    if problem := output_problem(out, "summary.md"):
        print(f"codex-probe report: {problem}", file=sys.stderr)
        return USAGE_ERROR
    verdicts: VerdictReport | None = None
    if (out / "verdict.json").exists():
        try:
            verdicts = load_verdict(out / "verdict.json")
        except VerdictFileError as error:
            print(f"codex-probe report: {error}", file=sys.stderr)
            return USAGE_ERROR
        summary = render_summary(verdicts)
        if history is not None:
            summary += "\n" + summary_line(history, out)
        (out / "summary.md").write_text(summary)
        print(f"summary: {out / 'summary.md'}")
        gate = evaluate(verdicts, verdicts.versions)
        said["summary"] = str(out / "summary.md")
        said["gate"] = {"decision": gate.word, "exit_code": gate.exit_code, "meaning": gate.meaning}
    results_dir = out / "allure-results"
    try:
        require_results(results_dir)  # before fetching Allure from npm
        allure = install_allure()
        versions = verdicts.versions if verdicts else []
        environment = report_environment(versions, TOOL, allure.version)
        if verdicts is not None:
            environment = {
                "gate": f"{gate.word}: exit {gate.exit_code}, {gate.meaning}",
                **environment,
            }
        write_results_metadata(results_dir, environment)
        if history is not None:
            link_results(results_dir, history, out / "html")
        generated = generate_html(allure, results_dir, out / "html", name=report_title(verdicts))
    except (ReportError, NpmError, AllureInstallError) as error:
        print(f"codex-probe report: {error}", file=sys.stderr)
        return FAILED
    print(
        f"report: {generated.index} ({generated.results} results, allure {allure.version}, "
        f"{generated.seconds:.1f}s)"
    )
    said |= {
        "report": str(generated.index),
        "report_bytes": generated.index.stat().st_size,
        "results": generated.results,
        "allure": allure.version,
    }
    incomplete = 0
    if verdicts is not None and not verdicts.complete:
        # The run ended early (interrupted, or killed before it wrote its last verdict): the
        # report shows what it judged, and says that is not a whole verdict.
        print(
            f"codex-probe report: {out / 'verdict.json'} is incomplete: the probe run ended "
            f"before {len(verdicts.missing)} finding(s) were judged; no verdict",
            file=sys.stderr,
        )
        incomplete = NO_VERDICT
    if args.screenshot is not None:
        try:
            picture = screenshot(generated.index.resolve().as_uri(), args.screenshot)
        except BrowserError as error:
            print(f"codex-probe report: {error}", file=sys.stderr)
            return FAILED
        print(f"screenshot: {picture}")
        said["screenshot"] = str(picture)
    return incomplete


def history_page(given: Path) -> Path:
    """The grid of the history folder given (the old spelling named the page itself)."""
    if given.suffix == ".html":
        deprecated("report", "--history FILE.html", "--history DIR (the folder of history.html)")
        page = given
    else:
        page = given / HISTORY_PAGE
    if not page.is_file():
        raise CommandFailed(f"--history {given}: no {page.name} there", USAGE_ERROR)
    return page


def report_title(verdicts: VerdictReport | None) -> str:
    """The page's heading: the versions and what the gate decides on them, at a glance
    (as `codex-probe gate` takes the run's verdict.json, without a baseline)."""
    if verdicts is None or not verdicts.versions:
        return REPORT_NAME
    gate = evaluate(verdicts, verdicts.versions)
    return f"codex-cli {', '.join(verdicts.versions)}: gate {gate.word} ({gate.meaning})"
