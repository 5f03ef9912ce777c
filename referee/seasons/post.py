"""A season's forum post (issue 15): its standings, made from a season view
(:func:`referee.seasons.views.season_view`, the one gate of what a viewer may
see of a season), never rows; the web routes pass the public view. Pure: no
Flask, no SQL.

The post is built from :class:`referee.markup.Markup`'s blocks, every name
through :meth:`Markup.esc` (no markup, link or picture can form from it). The
garnet picture it embeds is :mod:`referee.seasons.picture`'s, the ledger files
:mod:`referee.seasons.ledger_files`'.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from referee.chain import HEX64, SHORT
from referee.errors import RuleError
from referee.markup import Markup
from referee.seasons.views import player_names
from referee.words import counted, garnets

FORMATS = ("markdown", "bbcode")


def garnets_picture_url(view: Mapping[str, Any], base_url: str) -> str:
    """The absolute address of the season's garnet picture, as PNG (forums
    take PNG, not SVG, as for match posts). The query names the season's
    version, so a forum that keeps a copy of one image shows the next post's
    new picture."""
    return f"{base_url.rstrip('/')}/seasons/{view['id']}/garnets.png?v={view.get('version', 0)}"


def _rules_text(rules: Mapping[str, Any]) -> str:
    bonus = int(rules.get("token_bonus") or 0)
    lasts = (
        "until its holder spends it to skip a Death Match"
        if rules.get("token_lasts") == "until_used"
        else "for the episode it is won in"
    )
    gets = f"gets {garnets(bonus)}" if bonus else "gets no garnets"
    return f"the Token of Life's holder {gets}; a Token of Life protects {lasts}"


def _episode_text(e: Mapping[str, Any], who: Any) -> str:
    """One episode in words: its Main Match's outcome, then its Death Match."""
    line = f"Episode {int(e['number'])}: "
    if not e.get("recorded"):
        return line + "Main Match under way"
    holder = e.get("token_holder")
    line += (
        f"Main Match: Token of Life {who(holder) if holder is not None else 'nobody'}, "
        f"Elimination Candidate {who(e['candidate'])}; Death Match: "
    )
    candidate, opponent, loser = e.get("candidate"), e.get("opponent"), e.get("loser")
    if e.get("token_used"):
        return line + f"none, token spent by {who(candidate)}"
    if e.get("loser_by") == "nobody":
        return line + "none, no one could be chosen"
    if opponent is None:
        return line + f"{who(candidate)} has not chosen an opponent yet"
    line += f"{who(candidate)} against {who(opponent)}"
    if loser is not None:
        line += f", {who(loser)} lost and is eliminated"
        return line + (" (entered by the host)" if e.get("loser_by") == "host" else "")
    return line + (", under way" if e.get("death_match_id") else ", not made yet")


def standings_post(view: Mapping[str, Any], fmt: str, base_url: str | None = None) -> str:
    """The season's forum post in ``fmt`` (markdown or bbcode): its name, the
    rules, every player's garnets, Tokens of Life and status, and each
    episode's history; with ``base_url`` (the server's address) the garnet
    picture is embedded. Made from a season view only."""
    if fmt not in FORMATS:
        raise RuleError.single(
            "post/bad_format", f"a post is written in markdown or bbcode, not {fmt!r}", "format"
        )
    m = Markup(fmt)
    names = player_names(view)

    def who(number: object) -> str:
        return m.esc(names.get(int(str(number)), f"player {number}"))

    out = [m.heading(f"{m.esc(view.get('name', ''))} \u2014 season standings")]
    if base_url:
        out.append(m.image("Garnets over the season", garnets_picture_url(view, base_url)))
    out.append(m.field("Rules", _rules_text(view.get("rules") or {})))
    rows = []
    for p in view.get("players") or []:
        status = (
            f"eliminated in episode {int(p['eliminated_in'])}"
            if p.get("eliminated_in") is not None
            else "still in"
        )
        rows.append(
            f"{who(p['number'])}: {garnets(int(p['garnets']))}, "
            f"{counted(int(p['tokens']), 'Token of Life', 'Tokens of Life')}, {status}"
        )
    out.append(m.section("Players", rows))
    out.append(m.section("Episodes", [_episode_text(e, who) for e in view.get("episodes") or []]))
    out.append(ledger_block(view, fmt))
    return m.document(out)


def ledger_block(view: Mapping[str, Any], fmt: str) -> str:
    """The season post's last block (issue 27): the ledger's latest head, short
    and whole (``ENTRY:HEX``, as ``referee verify --head`` takes it), so each
    post keeps a copy of the ledger as it stood (docs/verify.md); "" before
    the first entry."""
    head, entries = view.get("ledger_head"), view.get("ledger") or []
    if not isinstance(head, str) or not HEX64.match(head) or not entries:
        return ""
    number = int(entries[-1]["id"])
    # our own value (digits and hex), in code as itself (see markup.chain_block)
    whole = f"`{number}:{head}`" if fmt == "markdown" else f"[code]{number}:{head}[/code]"
    return Markup(fmt).field(
        "Ledger head", f"{head[:SHORT]} (after entry {number}), to keep: {whole}"
    )
