"""Rocky River's own commands: ``referee map check`` (the CLI adds them)."""

from __future__ import annotations

import json
from pathlib import Path

import click

from referee.cli import fail, read_json
from referee.errors import RuleError

from .audit import fairness_text, map_fairness
from .balance import balance_json, balance_text
from .data import load_bundled_map, load_deck
from .river_map import parse_map


@click.group("map")
def map_group() -> None:
    """River maps (Rocky River Riding)."""


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
            river = parse_map(read_json(file_))
    except RuleError as exc:
        fail(exc, f"the map {file_}")
    fairness = map_fairness(river, load_deck())
    if as_json:
        click.echo(json.dumps({**balance_json(river), "fairness": fairness.as_dict()}, indent=1))
    else:
        click.echo(balance_text(river) + "\n" + fairness_text(fairness), nl=False)


commands: list[click.Command] = [map_group]
