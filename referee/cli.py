"""The ``referee`` command line: a thin layer over the engine."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any, NoReturn

import click

from referee.errors import RuleError
from referee.jsonio import loads_strict
from referee.ruleset import get_ruleset
from referee.rulesets.rocky_river.balance import balance_json, balance_text
from referee.rulesets.rocky_river.data import load_bundled_map
from referee.rulesets.rocky_river.river_map import parse_map


def _fail(exc: RuleError, what: str) -> NoReturn:
    click.echo(f"error: {what} was refused ({len(exc.problems)} problem(s)):", err=True)
    for p in exc.problems:
        click.echo(f"  [{p.code}] {p.message}", err=True)
    sys.exit(2)


def _read_json(path: str) -> Any:
    try:
        data = Path(path).read_bytes()
    except OSError as exc:
        _fail(RuleError.single("file/unreadable", f"cannot read {path}: {exc.strerror}"), path)
    try:
        return loads_strict(data, path)
    except RuleError as exc:
        _fail(exc, path)


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="rocky-river-referee")
def main() -> None:
    """Referee for play-by-post elimination matches (Rocky River Riding)."""


@main.command("resolve")
@click.option(
    "--file", "file_", required=True, metavar="MATCH.json", help="A match file (FORMAT.md)."
)
@click.option("--json", "as_json", is_flag=True, help="Print the result object of FORMAT.md.")
def resolve_cmd(file_: str, as_json: bool) -> None:
    """Resolve a match file and print the result."""
    doc = _read_json(file_)
    try:
        ruleset = get_ruleset(doc.get("ruleset", "rocky-river") if isinstance(doc, dict) else None)
        if as_json:
            click.echo(json.dumps(ruleset.resolve(doc), indent=1))
        else:
            click.echo(ruleset.summary(doc), nl=False)
    except RuleError as exc:
        _fail(exc, file_)


@main.group("map")
def map_group() -> None:
    """River maps."""


@map_group.command("check")
@click.argument("file_", metavar="FILE")
@click.option("--json", "as_json", is_flag=True, help="Print the balance summary as JSON.")
def map_check(file_: str, as_json: bool) -> None:
    """Check a map file against R3 and print its balance summary.

    FILE is a map file, or the name of a bundled map such as three-rapids.
    Problems are listed on stderr with exit status 2.
    """
    try:
        if not Path(file_).exists() and "/" not in file_ and not file_.endswith(".json"):
            river = load_bundled_map(file_)
        else:
            river = parse_map(_read_json(file_))
    except RuleError as exc:
        _fail(exc, f"the map {file_}")
    if as_json:
        click.echo(json.dumps(balance_json(river), indent=1))
    else:
        click.echo(balance_text(river), nl=False)
