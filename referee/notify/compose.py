"""What each event says, and to whom (issue 14): pure functions of a match's
**public** view, so no message can carry a sealed order or a hand.

The one private thing a message may hold is a seat's own secret link, and only
in the e-mail to that seat's address at the match's creation (the referee keeps
links only as digests, so no later message can carry one; a player who lost it
asks for it again on the public match page, see :func:`link_again`).

- E-mail goes to a seat's address (unless it unsubscribed): ``match_created``
  (its link), ``round_opened`` and ``reminder`` (to the seats that act in the
  round; the reminder only to those that have sent nothing), ``round_closed``
  (the public result) and ``match_ended``. A step one seat acts in (a turn)
  is that seat's turn: its ``round_opened`` says so ("Your turn: ..."), and the
  step's close e-mails no one (the next seat's turn e-mail follows; the webhook
  and the match page tell everyone), so a long turn-based match sends a seat
  an e-mail per turn of its own, not one per step (docs/notifications.md).
- The match's webhook gets every event, public information only. Its JSON has
  ``content`` (Discord) and ``text`` (Slack), plus ``event``, ``match_id``,
  ``url`` and ``delivery`` (the message's id, the same on a retry). Discord is
  told to ping no one (``allowed_mentions``), whatever a player is named.
"""

from __future__ import annotations

import html
import json
import re
import secrets
from dataclasses import dataclass, field
from typing import Any

from referee.markup import Markup, one_line, when

EVENTS = ("match_created", "round_opened", "reminder", "round_closed", "match_ended")
LINK_AGAIN = "link_again"  # the e-mail a player asks for on the public match page
WEBHOOK_TEXT_LIMIT = 1900  # Discord refuses content over 2,000 characters

_MD = Markup("markdown")


@dataclass(frozen=True)
class Targets:
    """Where a match's news goes: links' base, the webhook, and each seat's
    address with its unsubscribe key (seats without one, or unsubscribed, absent)."""

    base_url: str
    webhook_url: str | None = None
    emails: dict[int, tuple[str, str]] = field(default_factory=dict)


@dataclass(frozen=True)
class Outgoing:
    """One message for the outbox."""

    channel: str  # "email" or "webhook"
    event: str
    seat: int | None
    recipient: str
    subject: str
    body: str
    message_id: str
    dedup_key: str | None = None


def new_message_id() -> str:
    return secrets.token_hex(16)


def match_url(targets: Targets, view: dict[str, Any]) -> str:
    return f"{targets.base_url}/matches/{view['id']}"


def unsubscribe_url(targets: Targets, key: str) -> str:
    return f"{targets.base_url}/unsubscribe/{key}"


def _name(view: dict[str, Any]) -> str:
    return one_line(view["name"])


def _player(view: dict[str, Any], seat: int) -> str:
    for p in view["players"]:
        if p["seat"] == seat:
            return one_line(p["name"])
    return f"seat {seat}"


def _round(view: dict[str, Any], number: int) -> dict[str, Any]:
    return next(r for r in view["rounds"] if r["number"] == number)


def _closes(rnd: dict[str, Any]) -> str:
    deadline = when(rnd.get("deadline"))
    return f"It closes at {deadline}." if deadline else "It has no deadline: the host closes it."


def _signature(view: dict[str, Any], targets: Targets, seat: int, key: str) -> str:
    return (
        f"--\nThe match page: {match_url(targets, view)}\n"
        f'You get this e-mail as seat {seat} of "{_name(view)}" on the play-by-post '
        f"referee. To get no more e-mails about this match: {unsubscribe_url(targets, key)}\n"
    )


def _email(
    view: dict[str, Any],
    targets: Targets,
    event: str,
    seat: int,
    subject: str,
    text: str,
    dedup_key: str | None = None,
    *,
    whole_subject: bool = False,
) -> Outgoing:
    """``subject`` follows the match's name unless ``whole_subject`` (then it
    names the match itself); on one line either way (no header injection)."""
    address, key = targets.emails[seat]
    body = (
        f"Hello {_player(view, seat)},\n\n{text.rstrip()}\n\n{_signature(view, targets, seat, key)}"
    )
    return Outgoing(
        "email",
        event,
        seat,
        address,
        one_line(subject if whole_subject else f"{_name(view)}: {subject}")[:300],
        body,
        new_message_id(),
        None if dedup_key is None else f"{dedup_key}:seat{seat}",
    )


def _slack(text: str) -> str:
    """Slack's own escaping of message text: ``& < >`` (so ``<!channel>`` in a
    name mentions no one)."""
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def _webhook(
    view: dict[str, Any],
    targets: Targets,
    event: str,
    markdown: str,
    plain: str,
    extra: dict[str, Any] | None = None,
    dedup_key: str | None = None,
) -> list[Outgoing]:
    """The webhook's request (none without a webhook). ``markdown`` is for
    Discord (user text escaped with :class:`Markup`); ``plain`` for Slack."""
    if not targets.webhook_url:
        return []
    url = match_url(targets, view)
    message_id = new_message_id()
    content = markdown if len(markdown) <= WEBHOOK_TEXT_LIMIT else _cut(markdown, url)
    text = plain if len(plain) <= WEBHOOK_TEXT_LIMIT else _cut(plain, url)
    payload = {
        "event": event,
        "match_id": view["id"],
        "content": content,
        "text": _slack(text),
        "url": url,
        "delivery": message_id,
        "allowed_mentions": {"parse": []},  # Discord: ping no one
        **(extra or {}),
    }
    body = json.dumps(payload, ensure_ascii=False, separators=(",", ":"))
    subject = f"{event} {view['id']}"
    key = None if dedup_key is None else f"{dedup_key}:webhook"
    return [Outgoing("webhook", event, None, targets.webhook_url, subject, body, message_id, key)]


def _cut(text: str, url: str) -> str:
    tail = f"\n… the rest on the match page: {url}"
    return text[: WEBHOOK_TEXT_LIMIT - len(tail)].rstrip() + tail


def _game(view: dict[str, Any]) -> str:
    return str(view.get("title") or view.get("ruleset"))


def _round_extra(rnd: dict[str, Any]) -> dict[str, Any]:
    return {
        "round": {
            "number": rnd["number"],
            "title": rnd["title"],
            "deadline": rnd.get("deadline"),
            "status": rnd["status"],
        }
    }


# ---- the events ---------------------------------------------------------------


def match_created(view: dict[str, Any], targets: Targets, links: dict[int, str]) -> list[Outgoing]:
    """Each seat with an address gets its own secret link; the webhook, the
    public page and who plays."""
    out: list[Outgoing] = []
    url = match_url(targets, view)
    for seat in sorted(targets.emails):
        link = links.get(seat)
        if link is None:
            continue
        text = (
            f'You play seat {seat} in "{_name(view)}", a match of {_game(view)}.\n\n'
            f"Your own page, where you send your orders (keep this link to yourself: "
            f"anyone with it can play your seat):\n{link}\n\n"
            f"Later e-mails cannot carry this link (the referee keeps only a fingerprint "
            f"of it). If you lose it, ask for it again on the match page: {url}"
        )
        out.append(_email(view, targets, "match_created", seat, "your private link", text))
    players = ", ".join(f"{_player(view, p['seat'])}" for p in view["players"])
    md_players = ", ".join(_MD.esc(p["name"]) for p in view["players"])
    out += _webhook(
        view,
        targets,
        "match_created",
        f"New match {_MD.bold(_MD.esc(view['name']))} ({_game(view)}): {md_players}. {url}",
        f'New match "{_name(view)}" ({_game(view)}): {players}. {url}',
    )
    return out


def is_turn(rnd: dict[str, Any]) -> bool:
    """Whether a step is one seat's turn (one seat acts in it)."""
    return len(rnd["acting"]) == 1


def round_opened(view: dict[str, Any], targets: Targets, number: int) -> list[Outgoing]:
    rnd = _round(view, number)
    title = one_line(rnd["title"])
    if is_turn(rnd):
        return _turn_opened(view, targets, rnd)
    text = (
        f'{title} (round {number}) of "{_name(view)}" is open. {_closes(rnd)}\n\n'
        f"Send your order on your own page (the private link from your first e-mail "
        f"about this match)."
    )
    out = [
        _email(view, targets, "round_opened", seat, f"{title} is open", text)
        for seat in rnd["acting"]
        if seat in targets.emails
    ]
    url = match_url(targets, view)
    out += _webhook(
        view,
        targets,
        "round_opened",
        f"{_MD.bold(_MD.esc(view['name']))}: {title} is open. {_closes(rnd)} {url}",
        f'"{_name(view)}": {title} is open. {_closes(rnd)} {url}',
        _round_extra(rnd),
    )
    return out


def _turn_opened(view: dict[str, Any], targets: Targets, rnd: dict[str, Any]) -> list[Outgoing]:
    """A one-seat step: "your turn" to that seat; the webhook names whose turn."""
    seat = rnd["acting"][0]
    number = rnd["number"]
    title = one_line(rnd["title"])
    text = (
        f'It is your turn in "{_name(view)}": {title} (step {number}). {_closes(rnd)}\n\n'
        f"The other players wait for you. Send your order on your own page (the private "
        f"link from your first e-mail about this match)."
    )
    subject = f"Your turn: {_name(view)} \N{EM DASH} {title}"
    out = []
    if seat in targets.emails:
        out.append(_email(view, targets, "round_opened", seat, subject, text, whole_subject=True))
    url = match_url(targets, view)
    player = _player(view, seat)
    out += _webhook(
        view,
        targets,
        "round_opened",
        f"{_MD.bold(_MD.esc(view['name']))}: {_MD.esc(player)}'s turn: {_MD.esc(title)}. "
        f"{_closes(rnd)} {url}",
        f'"{_name(view)}": {player}\'s turn: {title}. {_closes(rnd)} {url}',
        {**_round_extra(rnd), "turn_of": seat},
    )
    return out


def _time_left(hours: float) -> str:
    if hours < 1:
        minutes = max(1, round(hours * 60))
        return f"{minutes} minute{'s' if minutes != 1 else ''}"
    whole = round(hours)
    return f"{whole} hour{'s' if whole != 1 else ''}"


def reminder(
    view: dict[str, Any], targets: Targets, number: int, hours_left: float, dedup_key: str
) -> list[Outgoing]:
    """To each acting seat that has sent nothing; the webhook names them
    (who has sent is public, never what). ``hours_left``: until the deadline."""
    rnd = _round(view, number)
    missing = [s for s in rnd["acting"] if s not in rnd["submitted"]]
    if not missing:
        return []
    title = one_line(rnd["title"])
    lead = _time_left(hours_left)
    text = (
        f'{title} (round {number}) of "{_name(view)}" closes in about {lead}, and you have '
        f"not sent an order yet. {_closes(rnd)} Without an order, the rules choose one "
        f"for you.\n\nSend it on your own page (the private link from your first e-mail "
        f"about this match)."
    )
    out = [
        _email(view, targets, "reminder", seat, f"{title} closes in {lead}", text, dedup_key)
        for seat in missing
        if seat in targets.emails
    ]
    names = ", ".join(_player(view, s) for s in missing)
    md_names = ", ".join(_MD.esc(_player(view, s)) for s in missing)
    url = match_url(targets, view)
    out += _webhook(
        view,
        targets,
        "reminder",
        f"{_MD.bold(_MD.esc(view['name']))}: {title} closes in about {lead}. "
        f"Waiting for {md_names}. {url}",
        f'"{_name(view)}": {title} closes in about {lead}. Waiting for {names}. {url}',
        {**_round_extra(rnd), "waiting_for": missing},
        dedup_key,
    )
    return out


_CLOSED_BY = {
    "deadline": "at its deadline",
    "early": "early: every order was in",
    "host": "by the host",
}


_MD_ESCAPED = re.compile(r"\\([\\`*_{}\[\]()>#+\-.!])")


def plain(post: str) -> str:
    """A Markdown forum post as an e-mail's plain text: the escapes that keep
    user text from becoming markup are undone (plain text has no markup; the
    invisible word joiners that keep names from becoming links stay)."""
    return html.unescape(_MD_ESCAPED.sub(r"\1", post))


def round_closed(view: dict[str, Any], targets: Targets, number: int, post: str) -> list[Outgoing]:
    """``post``: the game's forum post (Markdown) of the public view."""
    rnd = _round(view, number)
    title = one_line(rnd["title"])
    how = _CLOSED_BY.get(str(rnd.get("closed_by")), "")
    text = f'{title} (round {number}) of "{_name(view)}" has closed {how}.\n\n{plain(post).strip()}'
    # a turn's close e-mails no one: the next turn's e-mail follows (see the top)
    out = [
        _email(view, targets, "round_closed", seat, f"{title} has closed", text)
        for seat in sorted(targets.emails)
        if not is_turn(rnd)
    ]
    url = match_url(targets, view)
    out += _webhook(
        view,
        targets,
        "round_closed",
        f"{_MD.bold(_MD.esc(view['name']))}: {title} has closed {how}.\n\n{post.strip()}\n\n{url}",
        f'"{_name(view)}": {title} has closed {how}. The result: {url}',
        _round_extra(rnd),
    )
    return out


def match_ended(view: dict[str, Any], targets: Targets) -> list[Outgoing]:
    url = match_url(targets, view)
    text = (
        f'"{_name(view)}" has ended: every round has closed. The whole result, and the '
        f"seed that lets anyone check every draw and default, are on the match page:\n{url}"
    )
    out = [
        _email(view, targets, "match_ended", seat, "the match has ended", text)
        for seat in sorted(targets.emails)
    ]
    out += _webhook(
        view,
        targets,
        "match_ended",
        f"{_MD.bold(_MD.esc(view['name']))} has ended. The result: {url}",
        f'"{_name(view)}" has ended. The result: {url}',
    )
    return out


def link_again(view: dict[str, Any], targets: Targets, seat: int, link: str) -> Outgoing:
    """The e-mail a player asks for on the public match page: a one-time link
    (valid for an hour) that gives the seat a new private link."""
    text = (
        f'Someone asked for seat {seat}\'s private link of "{_name(view)}" to be sent to '
        f"this address. If it was you, open this within an hour: it gives you a new "
        f"private link (the old one then stops working):\n{link}\n\n"
        f"If it was not you, do nothing: your link stays as it is."
    )
    return _email(view, targets, LINK_AGAIN, seat, "your private link", text)
