"""Conformance: what every game behind :class:`referee.ruleset.Ruleset` must do.

Every test here runs against every registered ruleset (the built-in ones from
:func:`referee.ruleset.ruleset_names`, plus the test-only toy game of
``tests/toy``, registered by a fixture and also played with its fewest and
most seats). A new game passes this suite without writing a line of it: all a
test needs of a game comes from the interface itself —

- the match to play: :meth:`Ruleset.demo` (set-up, players, settings);
- the orders to send: for each acting seat, the demo's orders of the step (its
  own, then the other seats'), then the ruleset's
  :meth:`Ruleset.candidate_orders` for the seat's view (by default made from
  its ``options``: an options list, the list itself and each item; an options
  object of lists, the first, or the last, choice of each key; a game with
  compound orders lists some), then the reverse of every list among them;
  the first one :meth:`check_order` accepts is sent. Now and then a seat
  sends nothing, so seeded defaults are played too.

What is checked:

- replay is deterministic: the same arguments give the same state, again and
  from a fresh ruleset instance, and the arguments are not changed;
- ``upcoming`` numbers its steps from the next one, with known phases and
  acting seats;
- a match played through the service (SQLite and PostgreSQL) finishes, its
  export before the end has no seed and does not resolve, and at the end
  ``recheck`` finds nothing, the export resolves to the stored result and
  ``referee verify`` finds its chain, receipts and results sound;
- no view shows a sealed order: see :func:`test_no_view_shows_a_sealed_order`;
- no view shows a seat's private state to another seat: see
  :func:`test_private_state_reaches_at_most_one_seat` and
  :func:`test_nothing_public_at_the_start_depends_on_the_seed`;
- every refusal has stable codes of the form ``area/what``;
- every order ``check_order`` accepts matches its phase's schema (which the
  service checks first, so a schema narrower than the rules would refuse
  legal orders);
- only the acting seats of a step may send (``step/not_acting``), and
  ``close_early`` waits for the acting seats only.
"""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from leaf_changes import changed as changed_at
from leaf_changes import leaves
from service.conftest import drop_schemas, postgres_schema
from sqlalchemy import Engine
from toy import Toy, registered

from referee.db import make_engine, migrate
from referee.errors import RuleError
from referee.orderschema import schema_problems
from referee.ruleset import (
    Demo,
    GameState,
    Ruleset,
    Setup,
    Step,
    Viewer,
    get_ruleset,
    ruleset_names,
)
from referee.service import Referee, check_settings, step_of
from referee.verify import verify_export
from referee.views import preview_for, view_for

SEED = "conformance-seed"
CODE = re.compile(r"^[a-z_]+/[a-z_]+$")
MAX_STEPS = 500

# (ruleset, players): every registered game as its demo has it, and the toy game
# with its fewest and most seats too
CASES = [(name, None) for name in sorted({*ruleset_names(), "toy"})] + [("toy", 2), ("toy", 6)]
IDS = [name if players is None else f"{name}-{players}" for name, players in CASES]


@pytest.fixture(autouse=True)
def _toy_registered() -> Iterator[None]:
    with registered():
        yield


@dataclass
class Game:
    """A ruleset and the demo match it is played with."""

    name: str
    rules: Ruleset
    demo: Demo
    setup: Setup
    settings: dict[str, Any]  # the match's settings, as the service checks them

    def seats(self) -> tuple[int, ...]:
        return self.setup.seats

    def state(self, closed: list[dict[int, Any]], seed: str = SEED) -> GameState:
        data = self.rules.replay(self.setup, self.settings, seed, closed)
        return GameState(self.setup, self.settings, len(closed), data)


@pytest.fixture(params=CASES, ids=IDS)
def game(request: pytest.FixtureRequest) -> Game:
    name, players = request.param
    rules = get_ruleset(name)
    demo = rules.demo(players)
    return Game(
        name,
        rules,
        demo,
        rules.check_setup(demo.setup, demo.players),
        check_settings(demo.settings, rules),
    )


# ---- choosing orders ---------------------------------------------------------


def canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def candidates(game: Game, state: GameState, step: Step, seat: int) -> list[Any]:
    """Orders to try for ``seat`` in ``step``, most wanted first (see the module's text)."""
    demo = game.demo.steps[step.number - 1] if step.number <= len(game.demo.steps) else {}
    out: list[Any] = [demo[seat]] if seat in demo else []
    out += [order for s, order in sorted(demo.items()) if s != seat]
    view = game.rules.view(state, Viewer.of_seat(seat), revealed=False, open_step=step)
    out += game.rules.candidate_orders(state, step, seat, view)
    out += [list(reversed(o)) for o in list(out) if isinstance(o, list)]
    return [copy.deepcopy(o) for o in out]


def test_candidates_come_from_the_rulesets_hook() -> None:
    """The suite tries what :meth:`Ruleset.candidate_orders` lists (so a game
    with compound orders is played with them), and the default lists the
    view's ``options``: a list, and an object of lists."""

    class Compound(Toy):
        def candidate_orders(
            self, state: GameState, step: Step, seat: int, view: Mapping[str, Any]
        ) -> list[Any]:
            return [{"swap": {"give": 1, "take": 2}, "keep": 3}]

    rules = Compound()
    demo = rules.demo(2)
    game = Game(
        "toy", rules, replace(demo, steps=[]), rules.check_setup(demo.setup, demo.players), {}
    )
    state = game.state([])
    step = rules.next_step(state)
    assert step is not None
    assert candidates(game, state, step, 1) == [{"swap": {"give": 1, "take": 2}, "keep": 3}]
    base = Toy()
    assert base.candidate_orders(state, step, 1, {"options": [4, 9]}) == [[4, 9], 4, 9]
    both = {"options": {"a": [1, 2], "b": ["x"]}}
    assert base.candidate_orders(state, step, 1, both) == [{"a": 1, "b": "x"}, {"a": 2, "b": "x"}]
    assert base.candidate_orders(state, step, 1, {"options": {"a": []}}) == []
    assert base.candidate_orders(state, step, 1, {"result": {}}) == []


def legal_orders(game: Game, state: GameState, step: Step, seat: int) -> list[tuple[Any, Any]]:
    """The candidates ``check_order`` accepts, as (sent, normalised), one per
    distinct normalised order."""
    found: dict[str, tuple[Any, Any]] = {}
    for sent in candidates(game, state, step, seat):
        try:
            normal = game.rules.check_order(state, step, seat, copy.deepcopy(sent))
        except RuleError:
            continue
        found.setdefault(canonical(normal), (sent, normal))
    return list(found.values())


def leaves_out(step: Step, seat: int) -> bool:
    """Whether ``seat`` sends nothing in ``step`` (so that seeded defaults are played)."""
    return (step.number + seat) % 5 == 0


@dataclass
class Played:
    """One step of a match played at the ruleset's level: the state before it,
    the step, and the orders it closed with."""

    state: GameState
    step: Step
    orders: dict[int, Any]


def play(game: Game, seed: str = SEED) -> tuple[list[Played], GameState]:
    """Play ``game`` to its end without the service: its steps, and the final state."""
    closed: list[dict[int, Any]] = []
    steps: list[Played] = []
    for _ in range(MAX_STEPS):
        state = game.state(closed, seed)
        step = game.rules.next_step(state)
        if step is None:
            return steps, state
        assert step.number == len(closed) + 1
        orders: dict[int, Any] = {}
        for seat in step.acting:
            legal = legal_orders(game, state, step, seat)
            if legal and not leaves_out(step, seat):
                orders[seat] = legal[0][1]
        steps.append(Played(state, step, orders))
        closed.append(orders)
    raise AssertionError(f"{game.name}: no end after {MAX_STEPS} steps")


def closed_orders(steps: list[Played]) -> list[dict[int, Any]]:
    return [p.orders for p in steps]


# ---- the rules alone -----------------------------------------------------------


def test_replay_is_deterministic(game: Game) -> None:
    steps, _ = play(game)
    closed = closed_orders(steps)
    fresh = get_ruleset(game.name)
    assert fresh is not game.rules
    for k in range(len(closed) + 1):
        args = closed[:k]
        before = canonical([{str(s): o for s, o in step.items()} for step in args])
        first = game.rules.replay(game.setup, game.settings, SEED, args)
        again = game.rules.replay(game.setup, game.settings, SEED, copy.deepcopy(args))
        other = fresh.replay(game.setup, dict(game.settings), SEED, copy.deepcopy(args))
        assert canonical(first) == canonical(again) == canonical(other), f"after {k} steps"
        assert first == again == other
        after = canonical([{str(s): o for s, o in step.items()} for step in args])
        assert before == after, "replay changed the orders it was given"


def test_upcoming_numbers_steps_from_the_next(game: Game) -> None:
    steps, final = play(game)
    phases = {p.name for p in game.rules.phases}
    for played in steps:
        coming = game.rules.upcoming(played.state)
        assert coming, f"step {played.step.number}: the match is not over yet"
        assert coming[0] == played.step == game.rules.next_step(played.state)
        for offset, step in enumerate(coming):
            assert step.number == played.state.closed + 1 + offset
            assert step.phase in phases
            assert step.title
            assert step.acting and set(step.acting) <= set(game.seats())
            assert len(set(step.acting)) == len(step.acting)
    assert game.rules.upcoming(final) == []
    assert game.rules.next_step(final) is None


def test_schema_accepts_every_order_check_order_accepts(game: Game) -> None:
    steps, _ = play(game)
    checked = 0
    for played in steps:
        phase = game.rules.phase(played.step.phase)
        for seat in played.step.acting:
            for sent, normal in legal_orders(game, played.state, played.step, seat):
                assert schema_problems(sent, phase.schema, "order") == [], (played.step, sent)
                assert schema_problems(normal, phase.schema, "order") == [], (played.step, normal)
                checked += 1
    assert checked >= len(steps)


def _json_values() -> st.SearchStrategy[Any]:
    scalars = st.none() | st.booleans() | st.integers(-5, 40) | st.text(max_size=3)
    return st.recursive(
        scalars,
        lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=3), inner),
        max_leaves=8,
    )


@settings(
    max_examples=150,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(data=st.data())
def test_schema_accepts_what_check_order_accepts_hypothesis(
    game: Game, data: st.DataObject
) -> None:
    """Random JSON and random mixes of legal orders' parts: whenever the rules
    accept one, so does the phase's schema."""
    steps = _played(game)
    played = data.draw(st.sampled_from(steps))
    seat = data.draw(st.sampled_from(played.step.acting))
    parts: list[Any] = []
    for sent, _ in legal_orders(game, played.state, played.step, seat):
        parts.append(sent)
        if isinstance(sent, list):
            parts += sent
        if isinstance(sent, dict):
            parts += list(sent.values())
    value = data.draw(
        _json_values()
        | (st.sampled_from(parts) if parts else st.none())
        | (st.lists(st.sampled_from(parts), max_size=30) if parts else st.none())
    )
    try:
        normal = game.rules.check_order(played.state, played.step, seat, copy.deepcopy(value))
    except RuleError:
        return
    phase = game.rules.phase(played.step.phase)
    assert schema_problems(value, phase.schema, "order") == []
    assert schema_problems(normal, phase.schema, "order") == []


_PLAYED: dict[str, list[Played]] = {}


def _played(game: Game) -> list[Played]:
    key = f"{game.name}:{len(game.seats())}"
    if key not in _PLAYED:
        _PLAYED[key] = play(game)[0]
    return _PLAYED[key]


JUNK: list[Any] = [
    None,
    True,
    0,
    -1,
    10**12,
    1.5,
    "",
    "x",
    "\u00fcn\u00efcode",
    [],
    [None],
    [1, 1],
    [[[]]],
    {},
    {"x": 1},
    {"": []},
]


def _mutations(order: Any) -> list[Any]:
    """Near misses of a legal order: one part less, one part twice, one key more."""
    if isinstance(order, list) and order:
        return [order[1:], [*order, order[0]], [*order, "no-such-thing"]]
    if isinstance(order, dict) and order:
        first = next(iter(order))
        return [{k: v for k, v in order.items() if k != first}, {**order, "no-such-key": 1}]
    if isinstance(order, int) and not isinstance(order, bool):
        return [order + 1000, -order]
    return []


def refusal(rules: Ruleset, state: GameState, step: Step, seat: int, value: Any) -> list[Any]:
    """How the service would refuse ``value`` (the phase's schema first, then
    the rules): the problems, [] when accepted."""
    problems = schema_problems(value, rules.phase(step.phase).schema, "order")
    if problems:
        return [(p.code, p.message) for p in problems]
    try:
        rules.check_order(state, step, seat, copy.deepcopy(value))
    except RuleError as exc:
        return [(p.code, p.message) for p in exc.problems]
    return []


def _check_codes(game: Game, problems: list[Any], what: str) -> None:
    known = getattr(game.rules, "refusal_codes", None)
    for code, message in problems:
        assert CODE.match(code), f"{what}: code {code!r} is not area/what"
        assert isinstance(message, str) and message.strip(), f"{what}: {code} has no message"
        if known is not None:
            assert code in known, f"{what}: {code} is not in {game.name}'s refusal_codes"


def test_refusals_have_stable_codes(game: Game) -> None:
    fresh = get_ruleset(game.name)
    refused = 0
    for played in _played(game):
        state, step = played.state, played.step
        others = {s: o for s, o in played.orders.items()}
        for seat in step.acting:
            legal = [sent for sent, _ in legal_orders(game, state, step, seat)]
            tries = [*JUNK, *(m for o in legal for m in _mutations(o)), *others.values()]
            for value in tries:
                first = refusal(game.rules, state, step, seat, value)
                if not first:
                    continue
                refused += 1
                what = f"step {step.number}, seat {seat}, order {value!r}"
                _check_codes(game, first, what)
                assert refusal(game.rules, state, step, seat, value) == first, what
                fresh_state = GameState(state.setup, state.settings, state.closed, state.data)
                assert refusal(fresh, fresh_state, step, seat, value) == first, what
            assert refusal(game.rules, state, step, seat, None), "None is no order"
    assert refused > 0
    # set-up, settings and match files are refused with codes too
    for body, players in [({}, "x"), ({}, []), (game.demo.setup, [{"seat": 0}])]:
        with pytest.raises(RuleError) as exc:
            game.rules.check_setup(body, players)
        _check_codes_plain(exc.value)
    with pytest.raises(RuleError) as exc:
        check_settings({"no_such_setting": 1}, game.rules)
    _check_codes_plain(exc.value)
    not_files: list[Any] = [None, {}, [], "x"]
    for doc in not_files:
        with pytest.raises(RuleError) as exc:
            game.rules.resolve(doc)
        _check_codes_plain(exc.value)


def _check_codes_plain(exc: RuleError) -> None:
    assert exc.problems
    for p in exc.problems:
        assert CODE.match(p.code), p.code
        assert p.message.strip()


# ---- what viewers see, at the rules' level ------------------------------------


def _viewers(game: Game) -> list[Viewer]:
    return [Viewer.public(), Viewer.host(), *(Viewer.of_seat(s) for s in game.seats())]


def _seen(game: Game, state: GameState, viewer: Viewer, open_step: Step | None) -> str:
    """What ``viewer`` is shown of ``state`` (the public also sees the steps to come)."""
    try:
        shown: Any = game.rules.view(state, viewer, revealed=False, open_step=open_step)
        if viewer.kind == "public":
            coming = game.rules.upcoming(state)
            shown = {"view": shown, "upcoming": [[s.phase, s.title, s.acting] for s in coming]}
        return canonical(shown)
    except Exception as exc:  # a view that fails on a changed state has read it
        return f"error: {type(exc).__name__}"


LEAF_STATES = 16  # the most states whose every leaf the privacy check changes


def spread(
    states: list[tuple[GameState, Step | None]], most: int = LEAF_STATES
) -> list[tuple[GameState, Step | None]]:
    """At most ``most`` of a match's states for the leaf-by-leaf check: the
    start, the end, the first state opening each kind of step, and the rest
    evenly spaced. A turn-based match has dozens of states and thousands of
    leaves each (Fortune & Famine's demo alone took 196 s), so the check
    looks at every kind of moment, not every moment."""
    if len(states) <= most:
        return states
    keep = {0, len(states) - 1}
    seen: set[str] = set()
    for i, (_, step) in enumerate(states):
        phase = step.phase if step is not None else ""
        if phase not in seen:
            seen.add(phase)
            keep.add(i)
    even = [round(k * (len(states) - 1) / (most - 1)) for k in range(most)]
    for i in [*even, *range(len(states))]:
        if len(keep) >= most:
            break
        keep.add(i)
    return [states[i] for i in sorted(keep)]


def test_the_privacy_check_samples_every_kind_of_moment() -> None:
    """spread keeps short matches whole and, of a long one, the start, the end
    and the first state of each kind of step, at most LEAF_STATES in all."""
    setup = Setup(players=[], data={})
    made = [
        (GameState(setup, {}, i, {}), Step(i + 1, "late" if i == 37 else "turn", "", (1,)))
        for i in range(40)
    ] + [(GameState(setup, {}, 40, {}), None)]
    assert spread(made[:10]) == made[:10]
    picked = spread(made)
    assert len(picked) == LEAF_STATES
    assert picked[0] is made[0] and picked[-1] is made[-1] and made[37] in picked
    assert len({id(s) for s in picked}) == LEAF_STATES


def test_private_state_reaches_at_most_one_seat(game: Game) -> None:
    """No datum of the game's state that the public does not see reaches two seats.

    Generic, with no knowledge of the game's state: for every state of a played
    match (the start, with its deal, and after each closed step) and every leaf
    of its JSON (a card in a hand, a score, a placement...), the leaf is changed
    alone and every viewer's view (with the ``options`` of the next step) is made
    again. The viewers whose view changed are those who see that datum. A datum
    the public does not see (its view and the steps to come are unchanged) is
    private: at most one seat may see it — its owner — besides the host. So
    changing only seat A's private data changes no other seat's view, nor the
    public's. (It cannot tell which seat owns a datum, nor catch a leak of
    something computed from several leaves at once; the service-level test of
    sealed orders covers orders.)"""
    steps, final = play(game)
    states = spread([(p.state, p.step) for p in steps] + [(final, None)])
    viewers = _viewers(game)
    private = 0
    for state, open_step in states:
        base = {v: _seen(game, state, v, open_step) for v in viewers}
        for path in leaves(state.data):
            changed = GameState(
                state.setup, state.settings, state.closed, changed_at(state.data, path)
            )
            seeing = {v for v in viewers if _seen(game, changed, v, open_step) != base[v]}
            if Viewer.public() in seeing:
                continue
            seats = sorted(v.seat for v in seeing if v.kind == "seat" and v.seat is not None)
            assert len(seats) <= 1, (
                f"{game.name}, after {state.closed} steps: {'/'.join(map(str, path))} is "
                f"hidden from the public but seen by seats {seats}"
            )
            private += bool(seats)
    if game.name == "toy":
        assert private > 0, "the toy game's hands are private: the test saw none"


@pytest.mark.parametrize("viewer", [Viewer.public(), Viewer.host()], ids=["public", "host"])
def test_nothing_public_at_the_start_depends_on_the_seed(game: Game, viewer: Viewer) -> None:
    """The seed is secret until the end (R10), so nothing the public sees
    before the first step closes may come from it: a deal is private. The
    public's view of the start state (and the steps to come) is the same
    whatever the seed, but for what the rules make public from the start
    (``public_from_seed``: Forks' initial marketing cards and their totals).
    Nor may the host's (issue 22: the host sees no private data before its
    time, and no step has closed yet: Forks' first deal, the cards set aside)."""
    shown = set()
    drawn = game.rules.public_from_seed
    for seed in ("seed-a", "seed-b", "seed-c", "another seed", SEED):
        state = game.state([], seed)
        view = game.rules.view(state, viewer, revealed=False, open_step=None)
        result = view.get("result")
        if isinstance(result, dict):
            view["result"] = {k: v for k, v in result.items() if k not in drawn}
        coming = [[s.phase, s.title, s.acting] for s in game.rules.upcoming(state)]
        shown.add(canonical({"view": view, "upcoming": coming}))
    assert len(shown) == 1


# ---- played through the service -------------------------------------------------


class FixedClock:
    def __init__(self) -> None:
        self.now = datetime(2026, 11, 1, 12, 0, tzinfo=UTC)

    def __call__(self) -> datetime:
        return self.now


@pytest.fixture(params=["sqlite", "postgresql"])
def engine(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Engine]:
    schema = None
    if request.param == "sqlite":
        url = f"sqlite:///{tmp_path / 'conformance.db'}"
    else:
        schema, url = postgres_schema()
    eng = make_engine(url)
    migrate(eng)
    yield eng
    eng.dispose()
    if schema is not None:
        drop_schemas([schema])


@pytest.fixture
def svc(engine: Engine) -> Referee:
    return Referee(engine, clock=FixedClock())


HOSTILE = "<b>*x*</b> [b]y[/b] _z_ www.example.com"


def create(svc: Referee, game: Game, **settings: Any) -> str:
    players = [dict(p) for p in game.demo.players]
    players[0]["name"] = HOSTILE
    return svc.create_match(
        name=f"{HOSTILE} {game.demo.name}",
        setup=game.demo.setup,
        players=players,
        settings={**game.demo.settings, **settings},
        ruleset=game.name,
        seed=SEED,
    ).match_id


def open_step(svc: Referee, mid: str) -> tuple[GameState, Step]:
    """Open the next round: the game's state before it, and its step."""
    svc.open_round(mid)
    state = svc.state(mid)
    assert state.open_round is not None
    return state.game_state(), step_of(state.open_round)


def play_through_service(svc: Referee, game: Game, mid: str) -> Iterator[tuple[GameState, Step]]:
    """Open each step, yield it (for the caller to send orders), then send the
    chosen orders of the seats that have none yet and close it."""
    for _ in range(MAX_STEPS):
        if svc.state(mid).match.finished:
            return
        state, step = open_step(svc, mid)
        yield state, step
        sent = svc.state(mid).orders_of(step.number)
        if svc.state(mid).open_round is None:
            continue  # closed early by the caller's orders
        for seat in step.acting:
            legal = legal_orders(game, state, step, seat)
            if seat not in sent and legal and not leaves_out(step, seat):
                svc.submit_order(mid, seat, legal[0][0])
        svc.close_round(mid)
    raise AssertionError(f"{game.name}: no end after {MAX_STEPS} steps")


def test_a_match_played_through_the_service_resolves_from_its_export(
    svc: Referee, game: Game
) -> None:
    mid = create(svc, game)
    for _state, step in play_through_service(svc, game, mid):
        early = svc.export(mid)
        assert early["seed"] is None and early["seed_sha256"]
        if step.number > 1:
            with pytest.raises(RuleError):
                game.rules.resolve(early)
    state = svc.state(mid)
    assert state.match.finished and state.upcoming() == []
    assert game.rules.next_step(state.game_state()) is None
    with pytest.raises(RuleError) as over:
        svc.open_round(mid)
    assert over.value.codes == ["match/finished"]
    assert svc.recheck(mid) == []
    stored = state.rounds[-1].result
    exported = json.loads(json.dumps(svc.export(mid)))
    assert exported["seed"] == SEED
    assert game.rules.closed_steps(exported) == len(state.rounds)
    assert game.rules.resolve(exported, details=True) == stored
    assert game.rules.resolve(svc.document(mid), details=True) == stored
    assert get_ruleset(game.name).resolve(exported, details=True) == stored
    json.dumps(game.rules.resolve(exported))
    assert game.rules.summary(exported).strip()
    # its hash chain and proof check, through the game's interface alone (issue 27)
    checked = verify_export(exported)
    assert [f.line() for f in checked.findings] == []
    assert checked.rounds == len(state.rounds) and checked.heads == len(state.rounds) + 1
    public = view_for(state, Viewer.public())
    for fmt in ("markdown", "bbcode"):
        post = game.rules.post(public, fmt)
        assert post.strip()
        # user text shows as itself: no markup or link forms from it
        markup = ["[b]y"] if fmt == "bbcode" else ["<b>", "*x*", "_z_"]
        for raw in ["www.example.com", *markup]:
            assert raw not in post, f"{fmt}: {raw!r} from a name is in the post"


def _everyone_but(game: Game, seat: int) -> list[Viewer]:
    return [v for v in _viewers(game) if v != Viewer.of_seat(seat)]


def test_no_view_shows_a_sealed_order(svc: Referee, game: Game) -> None:
    """While a step is open, every view but the sender's is the same whatever
    the sender's order: in each step, each acting seat with two different legal
    orders sends one, then replaces it with the other, and every other viewer's
    ``view_for`` (the other seats', the host's, the public's) and the host's
    preview must be the same JSON, byte for byte, before and after. The clock
    stands still, so the time of sending does not change either; the sender's
    own view must change (the comparison is not blind)."""
    mid = create(svc, game)
    compared = 0
    for state, step in play_through_service(svc, game, mid):
        for seat in step.acting:
            legal = legal_orders(game, state, step, seat)
            if len(legal) < 2:
                continue
            (first, _), (second, _) = legal[0], legal[1]
            svc.submit_order(mid, seat, first)
            before = _snapshots(svc, game, mid, seat)
            own_before = canonical(view_for(svc.state(mid), Viewer.of_seat(seat)))
            svc.submit_order(mid, seat, second)
            after = _snapshots(svc, game, mid, seat)
            moved = [who for who in before if after[who] != before[who]]
            assert not moved, f"{step.title}: seat {seat}'s new order changed {moved}'s view"
            assert canonical(view_for(svc.state(mid), Viewer.of_seat(seat))) != own_before
            compared += 1
    assert compared > 0, f"{game.name}: no step had a seat with two legal orders"


def _snapshots(svc: Referee, game: Game, mid: str, sender: int) -> dict[str, str]:
    state = svc.state(mid)
    out = {
        f"{v.kind}{v.seat or ''}": canonical(view_for(state, v))
        for v in _everyone_but(game, sender)
    }
    out["preview"] = canonical(preview_for(svc.preview(mid)))
    return out


def test_only_acting_seats_send_and_close_early_waits_for_them(svc: Referee, game: Game) -> None:
    mid = create(svc, game, close_early=True)
    turns = 0
    seats = game.seats()
    for state, step in play_through_service(svc, game, mid):
        for seat in seats:
            if seat in step.acting:
                continue
            for host_entered in (False, True):
                with pytest.raises(RuleError) as refused:
                    svc.submit_order(mid, seat, None, host_entered=host_entered)
                assert refused.value.codes == ["step/not_acting"]
        with pytest.raises(RuleError) as unknown:
            svc.submit_order(mid, max(seats) + 1, None)
        assert unknown.value.codes == ["seat/unknown"]
        turns += len(step.acting) < len(seats)
        orders = {}
        for seat in step.acting:
            legal = legal_orders(game, state, step, seat)
            if not legal:
                break
            orders[seat] = legal[0][0]
        if len(orders) < len(step.acting):
            continue  # a seat with nothing to send: the step closes by the host
        for i, (seat, order) in enumerate(orders.items()):
            assert svc.state(mid).open_round is not None, f"closed before seat {seat} sent"
            svc.submit_order(mid, seat, order)
            if i < len(orders) - 1:
                assert svc.state(mid).open_round is not None
        closed = svc.state(mid).rounds[step.number - 1]
        assert closed.status == "closed" and closed.closed_by == "early", step
    assert svc.state(mid).match.finished
    if game.name == "toy":
        assert turns > 0, "the toy game has steps where one seat acts"


# ---- orders the host enters (issue 22) -------------------------------------------


def entry_candidates(game: Game, state: GameState, step: Step) -> list[Any]:
    """Orders a host might enter in ``step``: every acting seat's candidates
    (the demo's orders, and orders made from each seat's own options), so that
    what one seat may name is tried for the others too (another seat's deal)."""
    found: dict[str, Any] = {}
    for seat in step.acting:
        for order in candidates(game, state, step, seat):
            found.setdefault(canonical(order), order)
    return list(found.values())


def host_enters(svc: Referee, mid: str, seat: int, order: Any) -> tuple[str, Any]:
    """The host enters ``order`` for ``seat``: what it is told ("accepted" and
    the order as it then sees it, or the refusal's codes)."""
    try:
        svc.submit_order(mid, seat, copy.deepcopy(order), host_entered=True)
    except RuleError as exc:
        return "refused", exc.codes
    state = svc.state(mid)
    assert state.open_round is not None
    seen = view_for(state, Viewer.host())["orders"][str(state.open_round.number)][str(seat)]
    return "accepted", seen["order"]


def test_a_host_entering_an_order_learns_nothing_from_the_seed(svc: Referee, game: Game) -> None:
    """Issue 22: a host enters orders for seats (a player's, sent by private
    message), and must learn nothing private from their being accepted or
    refused. Before the first step closes nothing the host may see depends on
    the seed but what the rules make public from it, so whatever the seed
    (another deal), every order the host enters in the first step gets the
    same answer, for every acting seat; the orders tried include every seat's
    options (a card dealt to one seat, entered for another)."""
    seeds = (SEED, "another seed", "a third seed")
    told: dict[str, str] = {}
    tried = 0
    for seed in seeds:
        mid = svc.create_match(
            name=game.demo.name,
            setup=game.demo.setup,
            players=game.demo.players,
            settings=game.demo.settings,
            ruleset=game.name,
            seed=seed,
        ).match_id
        _, step = open_step(svc, mid)
        orders = [o for s in seeds for o in entry_candidates(game, game.state([], s), step)]
        answers = []
        for seat in step.acting:
            for order in orders:
                answers.append([seat, canonical(order), *host_enters(svc, mid, seat, order)])
        told[seed] = canonical(sorted(answers, key=canonical))
        tried = len(answers)
    assert tried > 0 and len(set(told.values())) == 1, f"{game.name}: the answers follow the seed"


def test_host_entered_orders_are_checked_by_the_rules_only_at_the_close(
    svc: Referee, game: Game, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 22, in the core, for every game: the service answers an order the
    host enters without the game's ``check_order`` (which reads the seat's
    private data: a deal, a hidden store), only from the host's own view
    (``check_entered_order``). At the close each host-entered order is checked
    by the rules: one they refuse is not used (the seat gets the default) and
    is marked refused, which the host and the seat see then; every other is
    used. The match then re-resolves from its export, at every step."""
    calls: list[str] = []
    entering = False
    original = type(game.rules).check_order

    def spy(self: Ruleset, state: GameState, step: Step, seat: int, order: Any) -> Any:
        if entering:
            calls.append(f"{step.title}, seat {seat}")
        return original(self, state, step, seat, order)

    monkeypatch.setattr(type(game.rules), "check_order", spy)
    mid = create(svc, game)
    refused = used = 0
    for state, step in play_through_service(svc, game, mid):
        entered: dict[int, Any] = {}
        for seat in step.acting:
            if leaves_out(step, seat):
                continue
            orders = entry_candidates(game, state, step)
            order = orders[(step.number + seat) % len(orders)]  # now and then another's
            entering = True
            answer = host_enters(svc, mid, seat, order)
            entering = False
            if answer[0] == "accepted":
                entered[seat] = answer[1]
        assert calls == [], f"{game.name}: check_order was asked at entry ({calls})"
        svc.close_round(mid)
        after = svc.state(mid)
        host = view_for(after, Viewer.host())["orders"].get(str(step.number), {})
        for seat, order in entered.items():
            try:
                game.rules.check_order(state, step, seat, copy.deepcopy(order))
                ok = True
            except RuleError:
                ok = False
            item = host[str(seat)]
            assert item.get("refused_at_close", False) is not ok, (step.title, seat, order)
            assert "problems" not in item  # why is the seat's to know
            mine = view_for(after, Viewer.of_seat(seat))["orders"][str(step.number)][str(seat)]
            assert bool(mine.get("problems")) is not ok
            refused += not ok
            used += ok
        if after.match.finished:
            break
    assert svc.recheck(mid) == []
    exported = json.loads(json.dumps(svc.export(mid)))
    assert game.rules.resolve(exported, details=True) == svc.state(mid).rounds[-1].result
    assert used > 0, f"{game.name}: no host-entered order was used"
    if game.name in ("forks-2e", "toy"):  # their deals are private from the host
        assert refused > 0, f"{game.name}: no host-entered order broke a rule at the close"
