"""The ``referee`` command line: a thin layer over the engine."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

import click

from referee.errors import RuleError
from referee.jsonio import loads_strict
from referee.ruleset import DEFAULT_RULESET, Ruleset, get_ruleset, ruleset_named_in, ruleset_names

if TYPE_CHECKING:
    from referee.service import Referee


def fail(exc: RuleError, what: str) -> NoReturn:
    """Print a refusal, one line per problem, and exit with status 2 (the
    games' own commands use it too)."""
    click.echo(f"error: {what} was refused ({len(exc.problems)} problem(s)):", err=True)
    for p in exc.problems:
        click.echo(f"  [{p.code}] {p.message}", err=True)
    sys.exit(2)


def _ruleset_of(doc: Any, what: str) -> Ruleset:
    """The ruleset a match file names; a refusal (exit 2) for an unknown one."""
    try:
        return ruleset_named_in(doc)
    except RuleError as exc:
        fail(exc, what)


def read_json(path: str) -> Any:
    """A JSON file, strictly read; a refusal (exit 2) when it cannot be."""
    try:
        data = Path(path).read_bytes()
    except OSError as exc:
        fail(RuleError.single("file/unreadable", f"cannot read {path}: {exc.strerror}"), path)
    try:
        return loads_strict(data, path)
    except RuleError as exc:
        fail(exc, path)


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="play-by-post-referee")
def main() -> None:
    """Referee for play-by-post elimination matches.

    Commands that use the database name it on stderr: REFEREE_DATABASE_URL, or
    referee.db in the user's data folder (on Linux ~/.local/share/referee, or
    $XDG_DATA_HOME/referee), the same wherever a command runs.
    """


@main.command("resolve")
@click.argument("match_id", required=False)
@click.option(
    "--file", "file_", metavar="MATCH.json", help="A match file (docs/contracts/<game>/FORMAT.md)."
)
@click.option(
    "--json",
    "as_json",
    is_flag=True,
    help="Print the result object of docs/contracts/<game>/FORMAT.md.",
)
@click.option(
    "--fix",
    is_flag=True,
    help="With MATCH_ID: store the re-resolved results, each fix a correction on the chain.",
)
def resolve_cmd(match_id: str | None, file_: str | None, as_json: bool, fix: bool) -> None:
    """Resolve a match file, or re-check a stored match.

    With --file, print the result of the match file. With MATCH_ID, resolve the
    stored match again from its stored orders and report every difference from
    the stored results (an erratum check): exit 0 when there is none, 1 when
    there is. With --fix as well, store the re-resolved results: each fixed
    round gets a correction entry appended to the match's hash chain, shown on
    its page; a published head is never rewritten (docs/verify.md). Exit 0.
    """
    if (match_id is None) == (file_ is None):
        raise click.UsageError("give either a MATCH_ID or --file MATCH.json")
    if fix and match_id is None:
        raise click.UsageError("--fix fixes a stored match: give its MATCH_ID, not --file")
    if match_id is not None:
        _recheck(match_id, as_json, fix)
        return
    assert file_ is not None
    doc = read_json(file_)
    ruleset = _ruleset_of(doc, file_)
    try:
        if as_json:
            click.echo(json.dumps(ruleset.resolve(doc), indent=1))
        else:
            click.echo(ruleset.summary(doc), nl=False)
    except RuleError as exc:
        fail(exc, file_)


def _service() -> Referee:
    """The service on the database of REFEREE_DATABASE_URL (default: the user's
    data folder, referee.db.data_dir), named on stderr so that stdout stays the
    command's output (JSON, an export)."""
    from referee.db import database_url, make_engine, migrate, old_instance_note
    from referee.notify.config import NotifyConfig
    from referee.service import Referee

    note = old_instance_note()
    if note is not None:
        click.echo(note, err=True)
    click.echo(f"database: {_safe_url()}", err=True)
    engine = make_engine(database_url())
    migrate(engine)
    return Referee(engine, notify=NotifyConfig.from_env())


def _recheck(match_id: str, as_json: bool, fix: bool = False) -> None:
    svc = _service()
    try:
        differences = svc.recheck(match_id)
        document = svc.document(match_id)
        closed = svc.ruleset_of(match_id).closed_steps(document)
        fixed = svc.correct(match_id) if fix else []
    except RuleError as exc:
        fail(exc, f"match {match_id}")
    if fix:
        heads = svc.state(match_id).corrections()
        out = [{"round": n, "head": heads[n][-1].head} for n in fixed]
        if as_json:
            click.echo(json.dumps({"match": match_id, "differences": differences, "fixed": out}))
        else:
            for line in differences:
                click.echo(f"  {line}")
            for item in out:
                number, head = item["round"], item["head"]
                click.echo(f"round {number} fixed: its correction's head is {number}:{head}")
            click.echo(
                f"match {match_id}: {len(fixed)} round(s) fixed, each a correction on its chain"
                if fixed
                else f"match {match_id}: every closed round re-resolves to its stored result "
                f"({closed} round(s) checked), nothing to fix"
            )
        sys.exit(0)
    if as_json:
        click.echo(json.dumps({"match": match_id, "differences": differences}, indent=1))
    elif differences:
        click.echo(f"match {match_id}: {len(differences)} difference(s) from the stored results:")
        for line in differences:
            click.echo(f"  {line}")
        click.echo("  (referee resolve MATCH_ID --fix stores them, each a correction on the chain)")
    else:
        click.echo(
            f"match {match_id}: every closed round re-resolves to its stored result "
            f"({closed} round(s) checked)"
        )
    sys.exit(1 if differences else 0)


@main.command("export")
@click.argument("match_id")
@click.option("-o", "--output", type=click.Path(dir_okay=False, writable=True), help="Write here.")
def export_cmd(match_id: str, output: str | None) -> None:
    """Write a stored match as a match file (docs/contracts/<game>/FORMAT.md)."""
    try:
        document = _service().export(match_id)
    except RuleError as exc:
        fail(exc, f"match {match_id}")
    text = json.dumps(document, indent=1, ensure_ascii=False) + "\n"
    if output:
        Path(output).write_text(text, encoding="utf-8")
        click.echo(f"wrote {output}", err=True)
    else:
        click.echo(text, nl=False)


@main.command("verify")
@click.argument("file_", metavar="FILE")
@click.option(
    "--head",
    "heads",
    multiple=True,
    metavar="[ROUND:]HEX",
    help="A head published earlier (a post, a chat), which must be one of the file's; "
    "ROUND:HEX (or start:HEX; ENTRY:HEX for a ledger) says whose head it was. Repeat it "
    "for several.",
)
def verify_cmd(file_: str, heads: tuple[str, ...]) -> None:
    """Check an exported match (`referee export`) offline: the seed against its
    digest, every receipt against its salt and order, that the orders re-resolve
    to the published results, that the hash chain recomputes, and that every
    --head is one of its heads (docs/verify.md). Exit 0 when all hold, 1 with one
    line per problem (naming its round and seat), 2 for a file that is not an
    export. A season's ledger file (ledger.json) is checked the same way: its
    chain, its balances, and each --head (ENTRY:HEX) against it."""
    from referee.seasons.chain import LedgerReport, is_ledger_file, verify_ledger
    from referee.verify import Report, verify_export

    doc = read_json(file_)
    report: Report | LedgerReport
    try:
        report = verify_ledger(doc, heads) if is_ledger_file(doc) else verify_export(doc, heads)
    except RuleError as exc:
        fail(exc, file_)
    for note in report.notes:
        click.echo(f"note: {note}", err=True)
    for finding in report.findings:
        click.echo(finding.line())
    if report.findings:
        click.echo(f"{file_}: {len(report.findings)} problem(s) ({report.summary()})", err=True)
        sys.exit(1)
    click.echo(f"{file_}: every check holds ({report.summary()})")


@main.command("close-due")
def close_due_cmd() -> None:
    """Close every round whose deadline has passed (safe from cron on several machines)."""
    closed = _service().close_due()
    for match_id, number in closed:
        click.echo(f"closed round {number} of match {match_id}")
    if not closed:
        click.echo("no round was due")


@main.command("notify")
@click.option(
    "--limit",
    default=500,
    show_default=True,
    type=click.IntRange(1, 100_000),
    help="Send at most this many messages in this run.",
)
@click.option(
    "--lease",
    default=300,
    show_default=True,
    type=click.IntRange(30, 86_400),
    help="Seconds a message stays claimed by this run while it is sent.",
)
def notify_cmd(limit: int, lease: int) -> None:
    """Close rounds past their deadline (opening the next where the match runs
    by itself), queue due reminders, send the messages due, and exit. Safe from
    cron on several machines at once: each message is claimed by one run."""
    from datetime import timedelta

    from referee.notify.outbox import deliver_due

    svc = _service()
    closed = svc.close_due()
    reminders = svc.queue_reminders()
    report = deliver_due(
        svc.engine, svc.notify, clock=svc.clock, limit=limit, lease=timedelta(seconds=lease)
    )
    click.echo(f"closed {len(closed)} round(s), queued {reminders} reminder(s); {report.line()}")
    if not svc.notify.mail_enabled:
        waiting = svc.waiting_emails()
        if waiting:
            click.echo(f"{waiting} e-mail(s) wait: this server has no REFEREE_SMTP_URL", err=True)


@main.command("demo")
@click.option(
    "--port",
    default=5000,
    show_default=True,
    type=click.IntRange(1, 65535),
    help="The port `referee serve --port` will listen on, for the printed links.",
)
@click.option(
    "--base-url",
    default=None,
    envvar="REFEREE_PUBLIC_BASE_URL",
    help="Where the server is reached, for the printed links (default: "
    "REFEREE_PUBLIC_BASE_URL when set, else http://127.0.0.1:PORT).",
)
@click.option(
    "--play",
    "play",
    default=0,
    show_default=True,
    type=click.IntRange(0, 1000),
    help="Rounds to play and close from the game's demo orders.",
)
@click.option(
    "--game",
    default=DEFAULT_RULESET,
    show_default=True,
    help="The game (ruleset) of the demo match.",
)
@click.option(
    "--players",
    default=None,
    type=click.IntRange(1, 100),
    help="How many players (for games that let the host choose).",
)
def demo_cmd(port: int, base_url: str | None, play: int, game: str, players: int | None) -> None:
    """Create a demo match and print its host, player and public links (at
    --base-url, or REFEREE_PUBLIC_BASE_URL, or http://127.0.0.1:PORT)."""
    from referee.demo import create_demo, demo_base_url

    svc = _service()
    try:
        links = create_demo(svc, demo_base_url(base_url, port), play, game, players)
    except RuleError as exc:
        fail(exc, f"the {game} demo")
    for label, url in links:
        click.echo(f"{label:<22} {url}")


@main.command("serve")
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to listen on.")
@click.option("--port", default=5000, show_default=True, type=click.IntRange(1, 65535))
@click.option(
    "--workers",
    default=1,
    show_default=True,
    type=click.IntRange(1, 64),
    help="gunicorn worker processes (more than one needs a shared rate-limit storage).",
)
@click.option(
    "--threads",
    default=8,
    show_default=True,
    type=click.IntRange(1, 256),
    help="Threads per worker process.",
)
@click.option(
    "--notify-every",
    # issue 24: steps of minutes close on time; a run costs what is due, not what is live
    default=5,
    show_default=True,
    type=click.IntRange(0, 86_400),
    help="Seconds between the server's own `referee notify` runs (0: none; run it from cron).",
)
def serve_cmd(host: str, port: int, workers: int, threads: int, notify_every: int) -> None:
    """Start the web server (gunicorn), creating or upgrading the database first."""
    from referee.server import serve, shared_counts_problem

    problem = shared_counts_problem(workers)
    if problem is not None:
        click.echo(f"referee serve: {problem}", err=True)
        sys.exit(2)
    _service()  # creates the database and runs migrations once, before the workers start
    click.echo(f"serving on http://{host}:{port}/", err=True)
    if port != 5000:
        click.echo(f"(`referee demo --port {port}` prints demo links for this port)", err=True)
    serve(host, port, workers, threads, notify_every=notify_every)


def _safe_url() -> str:
    from referee.db import database_url, shown_url

    return shown_url(database_url())


@main.command("audit")
@click.argument("match_id", required=False)
@click.option(
    "--file", "file_", metavar="MATCH.json", help="A match file (docs/contracts/<game>/FORMAT.md)."
)
@click.option("--json", "as_json", is_flag=True, help="Print the audit as JSON.")
def audit_cmd(match_id: str | None, file_: str | None, as_json: bool) -> None:
    """The best each seat could have done (OR-Tools CP-SAT), for a match file or a
    stored match, up to its last closed round."""
    if (match_id is None) == (file_ is None):
        raise click.UsageError("give either a MATCH_ID or --file MATCH.json")
    what = file_ or f"match {match_id}"
    try:
        # a stored match: its file with the seed (the operator's tool, not the host's)
        document = read_json(file_) if file_ else _service().document(str(match_id))
        rules = _ruleset_of(document, what)
        if as_json:
            click.echo(json.dumps(rules.audit(document, stored=file_ is None), indent=1))
        else:
            click.echo(rules.audit_text(document, stored=file_ is None), nl=False)
    except RuleError as exc:
        fail(exc, what)


@main.command("bench")
@click.option("--json", "as_json", is_flag=True, help="Print the figures as JSON.")
@click.option("--quick", is_flag=True, help="Fewer repetitions (a rough figure in seconds).")
@click.option(
    "--database-url",
    default=None,
    help="Database of the server measured (default: a new SQLite file in a temporary folder).",
)
@click.option(
    "--workers",
    default=2,
    show_default=True,
    type=click.IntRange(1, 64),
    help="gunicorn workers of the server measured.",
)
def bench_cmd(as_json: bool, quick: bool, database_url: str | None, workers: int) -> None:
    """Measure the engine, the audits, order submissions through a real server
    (`referee serve` on 127.0.0.1, against its own home page) and a match page
    among 10,000 matches, on this machine."""
    from referee.bench import audit_bench, engine_bench, page_bench, pulse_bench, server_bench

    figures = {
        **server_bench(database_url, workers=workers, seconds=2.0 if quick else 10.0),
        **page_bench(matches=10_000, requests=30 if quick else 100),
        **pulse_bench(database_url, seconds=6.0 if quick else 20.0),
        **engine_bench(matches=300 if quick else 3000),
        **audit_bench(matches=3 if quick else 20),
    }
    if as_json:
        click.echo(json.dumps(figures, indent=1))
    else:
        for key, value in figures.items():
            click.echo(f"{key:<28} {value}")


@main.command("backup")
@click.argument("file_", metavar="FILE")
def backup_cmd(file_: str) -> None:
    """Write every match's full state to FILE as JSON (a consistent snapshot,
    safe while the server runs): match rows with token hashes, settings and
    seeds, seats, rounds with deadlines and results, orders with salts and
    receipts. `referee restore FILE` loads it into an empty database."""
    from referee.backup import write_backup

    svc = _service()
    count = write_backup(svc.engine, Path(file_))
    click.echo(f"wrote {count} match(es) to {file_} (database: {_safe_url()})", err=True)


@main.command("restore")
@click.argument("file_", metavar="FILE")
def restore_cmd(file_: str) -> None:
    """Load a backup written by `referee backup` into an EMPTY database (the
    database of REFEREE_DATABASE_URL, created or migrated first). A database
    that already holds a match is refused (exit 2): nothing is changed."""
    from referee.backup import restore

    data = read_json(file_)
    svc = _service()
    try:
        counts = restore(svc.engine, data)
    except RuleError as exc:
        fail(exc, f"restoring {file_} into {_safe_url()}")
    click.echo(
        f"restored {counts['match']} match(es), {counts['seats']} seat(s), "
        f"{counts['rounds']} round(s) and {counts['orders']} order(s) from {file_} "
        f"(database: {_safe_url()})",
        err=True,
    )


def _add_game_commands() -> None:
    """Each game's own commands (e.g. a check of a game's set-up files), from the
    module its ruleset names; they use :func:`read_json` and :func:`fail`."""
    import importlib

    for name in ruleset_names():
        module = get_ruleset(name).cli_module
        if module is not None:
            for command in importlib.import_module(module).commands:
                main.add_command(command)


_add_game_commands()
