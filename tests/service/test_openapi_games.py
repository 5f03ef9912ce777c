"""The per-game parts of the OpenAPI document follow the ruleset registry: every
registered game adds its order bodies (one per phase, from the phase's schema),
its create body (set-up keys, typed settings, number of players, its name), its
view and its own schemas, and unregistering it takes them away again.

A tiny two-phase game, written here against :class:`referee.ruleset.Ruleset`,
is registered for these tests only; the API then serves, takes and answers for
it exactly as its generated schemas say (on SQLite and PostgreSQL).
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any, ClassVar

import pytest
from flask.testing import FlaskClient
from jsonschema import Draft202012Validator, ValidationError
from openapi_spec_validator import validate
from referencing import Registry
from referencing.jsonschema import DRAFT202012

from referee.orderschema import public_schema
from referee.ruleset import (
    GameState,
    Phase,
    Ruleset,
    Setting,
    Setup,
    Step,
    Viewer,
    get_ruleset,
    register,
    ruleset_names,
    unregister,
)
from referee.rulesets.forks_2e.cards import ALL_CARDS
from referee.rulesets.forks_2e.match import resolve as resolve_forks
from referee.web.api import _prefix, openapi_document

SCHEMAS = "#/components/schemas/"
TINY = "tiny-duel"
FORKS_GOLDEN = Path(__file__).resolve().parents[1] / "golden" / "forks-2e"


class TinyDuel(Ruleset):
    """Two steps: everyone bids a number, then everyone guesses words."""

    name = TINY
    title = "Tiny Duel"
    min_players = 2
    max_players = 4
    phases = (
        Phase("bid", "bid", {"type": "integer", "minimum": 0, "x-code": "bid/bad"}),
        Phase(
            "guess",
            "guesses",
            {"type": "array", "items": {"type": "string", "x-code": "guess/bad"}},
        ),
    )
    settings: ClassVar[tuple[Setting, ...]] = (
        Setting("sudden_death", "Sudden death", "flag", False, help="no second chance"),
        Setting("pace", "Pace", "choice", "slow", ("slow", "fast")),
        Setting("turns", "Turn order", "order", ("a", "b"), ("a", "b")),
        Setting("nicknames", "Nicknames", "names", {}, ("a", "b")),
    )
    setup_keys = ("stakes",)

    def check_setup(self, body: Mapping[str, Any], players: Any) -> Setup:
        seats = [{"seat": p["seat"], "name": p["name"], "garnets": p["garnets"]} for p in players]
        return Setup(players=seats, data={"stakes": body.get("stakes", 1)})

    def document(
        self,
        setup: Setup,
        settings: Mapping[str, Any],
        seed: str | None,
        closed: Sequence[Mapping[int, Any]],
        host_entered: Sequence[tuple[int, int]] = (),
    ) -> Any:
        steps = [{str(seat): order for seat, order in orders.items()} for orders in closed]
        return {"ruleset": TINY, "players": setup.players, "seed": seed, "steps": steps}

    def resolve(self, document: Any, details: bool = False, *, stored: bool = False) -> Any:
        return {"closed": len(document["steps"])}

    def upcoming(self, state: GameState) -> list[Step]:
        seats = state.setup.seats
        names = {1: "bid", 2: "guess"}
        return [Step(n, names[n], names[n].title(), seats) for n in range(state.closed + 1, 3)]

    def check_order(self, state: GameState, step: Step, seat: int, order: Any) -> Any:
        return order

    def view(
        self, state: GameState, viewer: Viewer, *, revealed: bool, open_step: Step | None
    ) -> dict[str, Any]:
        out: dict[str, Any] = {"stakes": state.setup.data["stakes"], "result": state.data}
        if viewer.kind == "seat" and open_step is not None:
            out["options"] = ["any"]
        return out

    def post(self, public_view: dict[str, Any], fmt: str, base_url: str | None = None) -> str:
        return ""

    def summary(self, document: Any) -> str:
        return ""

    def openapi_components(self) -> dict[str, Any]:
        return {
            "View": {
                "type": "object",
                "required": ["stakes", "result"],
                "additionalProperties": False,
                "properties": {
                    "stakes": {"$ref": SCHEMAS + "Stakes"},
                    "result": {"$ref": SCHEMAS + "Result"},  # its own Result, not the base's
                    "options": {"type": "array", "items": {"type": "string"}},
                },
            },
            "Setup": {
                "type": "object",
                "required": ["stakes"],
                "properties": {"stakes": {"$ref": SCHEMAS + "Stakes"}},
            },
            "Stakes": {"type": "integer", "minimum": 1},
            "Result": {
                "type": "object",
                "required": ["closed"],
                "additionalProperties": False,
                "properties": {"closed": {"type": "integer", "minimum": 0}},
            },
        }


@pytest.fixture
def tiny() -> Iterator[None]:
    """Tiny Duel registered for one test (the document follows by itself)."""
    register(TINY, TinyDuel)
    try:
        yield
    finally:
        unregister(TINY)


def schemas_of(doc: dict[str, Any]) -> dict[str, Any]:
    found: dict[str, Any] = doc["components"]["schemas"]
    return found


def refs(node: Any) -> Iterator[str]:
    if isinstance(node, dict):
        if isinstance(node.get("$ref"), str):
            yield node["$ref"]
        for value in node.values():
            yield from refs(value)
    elif isinstance(node, list):
        for value in node:
            yield from refs(value)


def ref_names(schema: dict[str, Any], key: str) -> list[str]:
    return [entry["$ref"].removeprefix(SCHEMAS) for entry in schema[key] if "$ref" in entry]


def conforms(doc: dict[str, Any], name: str, value: Any) -> None:
    """Raise unless ``value`` matches the document's schema ``name``."""
    registry: Registry[Any] = Registry().with_resource("urn:api", DRAFT202012.create_resource(doc))
    Draft202012Validator({"$ref": f"urn:api{SCHEMAS}{name}"}, registry=registry).validate(value)


def order_bodies(doc: dict[str, Any], prefix: str) -> dict[str, dict[str, Any]]:
    """A game's order bodies by their order key."""
    return {body["required"][0]: body for body in schemas_of(doc)[prefix + "OrderBody"]["oneOf"]}


def check_game(doc: dict[str, Any], rules: Ruleset, prefix: str) -> None:
    """What the document holds of ``rules`` is made from its ruleset."""
    schemas = schemas_of(doc)
    fields = schemas["OrderFields"]["properties"]
    bodies = order_bodies(doc, prefix)
    assert set(bodies) == {p.order_key for p in rules.phases}
    for phase in rules.phases:
        body = bodies[phase.order_key]
        assert body["additionalProperties"] is False
        assert body["properties"] == {
            "seat": fields["seat"],
            phase.order_key: public_schema(phase.schema),
            "round": fields["round"],
        }
    assert prefix + "OrderBody" in ref_names(schemas["OrderBody"], "anyOf")

    create = schemas[prefix + "CreateMatch"]
    assert prefix + "CreateMatch" in ref_names(schemas["CreateMatch"], "oneOf")
    assert create["properties"]["ruleset"]["const"] == rules.name
    assert create["additionalProperties"] is False
    assert set(create["properties"]) == {
        "name",
        "players",
        "settings",
        "ruleset",
        "notify",
        "schedule",
        *rules.setup_keys,
    }
    players = create["properties"]["players"]
    assert (players["minItems"], players["maxItems"]) == (rules.min_players, rules.max_players)
    settings = schemas[prefix + "Settings"]["properties"]
    assert set(settings) == {
        *schemas["ServiceSettings"]["properties"],
        *(s.key for s in rules.settings),
    }

    view = schemas[prefix + "MatchView"]
    assert view["properties"]["ruleset"]["const"] == rules.name
    assert (
        schemas["MatchView"]["discriminator"]["mapping"][rules.name]
        == SCHEMAS + prefix + "MatchView"
    )
    assert set(schemas["ViewShared"]["required"]) <= set(view["required"])
    phases = view["properties"]["rounds"]["items"]["allOf"][1]["properties"]["phase"]["enum"]
    assert phases == [p.name for p in rules.phases]


def check_document(doc: dict[str, Any]) -> None:
    """Valid OpenAPI, every reference resolved, nothing left to generate, and
    one create body and one view per registered game."""
    validate(doc)
    schemas = schemas_of(doc)
    assert not [name for name, s in schemas.items() if "x-generated" in s]
    for ref in refs(doc):
        assert ref.startswith(SCHEMAS) and ref.removeprefix(SCHEMAS) in schemas, ref
    consts = {
        schemas[name]["properties"]["ruleset"]["const"]
        for name in ref_names(schemas["CreateMatch"], "oneOf")
    }
    assert consts == set(ruleset_names())
    assert set(schemas["MatchView"]["discriminator"]["mapping"]) == set(ruleset_names())


def test_rocky_river_parts_come_from_its_ruleset() -> None:
    doc = openapi_document()
    check_document(doc)
    rules = get_ruleset("rocky-river")
    check_game(doc, rules, "RockyRiver")
    schemas = schemas_of(doc)
    # every phase schema, without its x- annotations, is an order body
    bodies = order_bodies(doc, "RockyRiver")
    for phase in rules.phases:
        shown = bodies[phase.order_key]["properties"][phase.order_key]
        assert shown == public_schema(phase.schema) and "x-code" not in str(shown)
    # its own schemas, prefixed, with their references to one another rehomed
    for name in rules.openapi_components():
        assert "RockyRiver" + name in schemas
    assert schemas["RockyRiverMap"]["properties"]["forks"]["items"] == {
        "$ref": SCHEMAS + "RockyRiverFork"
    }
    assert "Map" not in schemas and "Card" not in schemas
    # the default game: its create body may leave "ruleset" out
    create = schemas["RockyRiverCreateMatch"]
    assert "ruleset" not in create["required"] and "map" in create["required"]
    assert schemas["RockyRiverSettings"]["properties"]["publish_totals"]["type"] == "boolean"
    # seat numbers are not Rocky River's three in the shared parts
    assert schemas["Seat"] == {**schemas["Seat"], "type": "integer", "minimum": 1}
    assert "enum" not in schemas["Seat"]


@pytest.mark.parametrize("name", ruleset_names())
def test_every_registered_game_has_its_parts(name: str) -> None:
    """Each built-in game: its generated parts, and its own schemas prefixed,
    with its View, Result, MatchFile and Audit where the API answers them."""
    doc = openapi_document()
    check_document(doc)
    rules = get_ruleset(name)
    prefix = _prefix(name)
    check_game(doc, rules, prefix)
    schemas = schemas_of(doc)
    own = rules.openapi_components()
    assert own, f"{name} describes none of its own parts"
    for key in own:
        assert prefix + key in schemas, key
    for role in ("Result", "MatchFile", "Audit"):
        if role in own:
            assert prefix + role in ref_names(schemas[role], "anyOf"), role
    view = schemas[prefix + "MatchView"]
    if "Result" in own:
        assert view["properties"]["result"] == {"$ref": SCHEMAS + prefix + "Result"}
    for key in own.get("View", {}).get("required", ()):
        assert key in view["required"], key


def test_forks_parts_come_from_its_ruleset() -> None:
    doc = openapi_document()
    schemas = schemas_of(doc)
    create = schemas["Forks2eCreateMatch"]
    keys = {"name", "players", "settings", "ruleset", "notify", "schedule"}
    assert set(create["properties"]) == keys  # no map
    assert "ruleset" in create["required"]  # not the default game
    players = create["properties"]["players"]
    assert (players["minItems"], players["maxItems"]) == (2, 6)
    settings = schemas["Forks2eSettings"]["properties"]
    assert settings["merge"]["type"] == "boolean"
    assert settings["tiebreak"]["default"] == ["blue", "grey", "yellow", "green", "red"]
    assert set(order_bodies(doc, "Forks2e")) == {"keep", "market"}
    view = schemas["Forks2eMatchView"]
    assert view["additionalProperties"] is False
    assert view["properties"]["options"] == {"$ref": SCHEMAS + "Forks2eOptions"}
    # canonical card ids only (F2): the 55, and nothing else
    for card in ALL_CARDS:
        conforms(doc, "Forks2eCard", card)
    for bad in ("Grey 8x", "GREY-8", "grey-13", "grey-2", "blue-8x", "grey-8x ", "red-4xx"):
        with pytest.raises(ValidationError):
            conforms(doc, "Forks2eCard", bad)
    conforms(doc, "OrderBody", {"keep": "Grey 8x", "seat": 2})  # a body may spell it so
    # the contract's examples: each match file, and its whole state as a result
    for path in sorted(FORKS_GOLDEN.glob("*.match.json")):
        document = json.loads(path.read_text())
        conforms(doc, "Forks2eMatchFile", document)
        conforms(doc, "MatchFile", document)
        conforms(doc, "Forks2eResult", resolve_forks(document, details=True))
    result = resolve_forks(json.loads((FORKS_GOLDEN / "01-three-players.match.json").read_text()))
    with pytest.raises(ValidationError):  # the result of a view has its counts too
        conforms(doc, "Forks2eResult", result)
    state = resolve_forks(
        json.loads((FORKS_GOLDEN / "01-three-players.match.json").read_text()), details=True
    )
    with pytest.raises(ValidationError, match="Additional properties"):
        conforms(doc, "Forks2eResult", {**state, "map": "three-rapids"})
    with pytest.raises(ValidationError):  # a finished match's result has its scores
        conforms(doc, "Forks2eResult", {k: v for k, v in state.items() if k != "scores"})
    conforms(doc, "Forks2eAudit", {"seats": {"1": {"actual": 3, "best_market": 5, "gain": 2}}})
    conforms(doc, "Forks2eSetup", {})
    with pytest.raises(ValidationError):
        conforms(doc, "Forks2eSetup", {"map": "three-rapids"})


def test_a_registered_game_adds_its_parts(tiny: None) -> None:
    doc = openapi_document()
    check_document(doc)
    rules = get_ruleset(TINY)
    check_game(doc, rules, "TinyDuel")
    check_game(doc, get_ruleset("rocky-river"), "RockyRiver")
    schemas = schemas_of(doc)
    create = schemas["TinyDuelCreateMatch"]
    assert {"ruleset", "stakes"} <= set(create["required"])  # not the default game
    assert create["properties"]["stakes"] == {"$ref": SCHEMAS + "TinyDuelStakes"}
    # its own Result, prefixed, is what its view refers to, and one of the results
    view = schemas["TinyDuelMatchView"]
    assert view["properties"]["result"] == {"$ref": SCHEMAS + "TinyDuelResult"}
    assert view["additionalProperties"] is False
    assert {"TinyDuelResult", "RockyRiverResult"} <= set(ref_names(schemas["Result"], "anyOf"))
    # no MatchFile or Audit of its own: any object is one of those
    assert {"type": "object"} in schemas["MatchFile"]["anyOf"]
    assert {"type": "object"} in schemas["Audit"]["anyOf"]
    # each kind of setting as its schema
    settings = schemas["TinyDuelSettings"]["properties"]
    assert settings["sudden_death"]["type"] == "boolean"
    assert settings["pace"]["enum"] == ["slow", "fast"]
    assert settings["turns"]["items"]["enum"] == ["a", "b"]
    assert settings["turns"]["minItems"] == settings["turns"]["maxItems"] == 2
    assert settings["turns"]["default"] == ["a", "b"]
    assert settings["nicknames"]["propertyNames"] == {"enum": ["a", "b"]}
    # bodies of each game's orders, told apart by their key
    conforms(doc, "OrderBody", {"guesses": ["x"], "seat": 2})
    conforms(doc, "OrderBody", {"votes": ["L"], "round": None})
    with pytest.raises(ValidationError, match="is not valid"):
        conforms(doc, "OrderBody", {"guesses": ["x"], "bid": 3})


def test_the_document_follows_the_registry_by_itself() -> None:
    before = openapi_document()
    assert not [name for name in schemas_of(before) if name.startswith("TinyDuel")]
    register(TINY, TinyDuel)
    try:
        assert "TinyDuelOrderBody" in schemas_of(openapi_document())
    finally:
        unregister(TINY)
    assert openapi_document() is before  # made once per set of registered games


def test_unregistering_takes_the_parts_away(tiny: None) -> None:
    assert "TinyDuelOrderBody" in schemas_of(openapi_document())
    unregister(TINY)
    doc = openapi_document()
    check_document(doc)
    assert not [name for name in schemas_of(doc) if name.startswith("TinyDuel")]


def test_a_reference_to_an_unknown_schema_is_refused(tiny: None) -> None:
    class Broken(TinyDuel):
        name = "broken-duel"

        def openapi_components(self) -> dict[str, Any]:
            return {"View": {"properties": {"stakes": {"$ref": SCHEMAS + "Nowhere"}}}}

    register(Broken.name, Broken)
    try:
        with pytest.raises(ValueError, match=r"broken-duel.*Nowhere"):
            openapi_document()
    finally:
        unregister(Broken.name)
    assert "TinyDuelView" in schemas_of(openapi_document())


def test_the_api_answers_a_registered_game_as_described(tiny: None, client: FlaskClient) -> None:
    """A Tiny Duel match through the API: each body sent and each answer match
    the document's generated schemas."""
    doc = client.get("/api/openapi.json").get_json()
    assert doc == openapi_document() and "TinyDuelMatchView" in schemas_of(doc)
    body = {
        "name": "Duel",
        "ruleset": TINY,
        "stakes": 3,
        "players": [
            {"seat": 1, "name": "Ana", "garnets": 1},
            {"seat": 2, "name": "Bo", "garnets": 2},
        ],
        "settings": {"pace": "fast", "turns": ["b", "a"], "close_early": True},
    }
    conforms(doc, "CreateMatch", body)
    created = client.post("/api/matches", json=body)
    assert created.status_code == 201, created.get_json()
    conforms(doc, "Created", created.get_json())
    match, host = created.get_json()["id"], created.get_json()["host_token"]
    seat = created.get_json()["player_tokens"]["2"]

    opened = client.post(
        f"/api/matches/{match}/rounds/open", headers={"Authorization": f"Bearer {host}"}
    )
    assert opened.status_code == 200
    conforms(doc, "MatchView", opened.get_json())
    assert [r["phase"] for r in opened.get_json()["rounds"]] == ["bid", "guess"]

    refused = client.put(
        f"/api/matches/{match}/orders",
        headers={"Authorization": f"Bearer {seat}"},
        json={"bid": -1},
    )
    assert refused.status_code == 422
    assert [e["code"] for e in refused.get_json()["errors"]] == ["bid/bad"]
    order = {"bid": 5}
    conforms(doc, "OrderBody", order)
    sent = client.put(
        f"/api/matches/{match}/orders", headers={"Authorization": f"Bearer {seat}"}, json=order
    )
    assert sent.status_code == 200, sent.get_json()
    conforms(doc, "Accepted", sent.get_json())

    mine = client.get(f"/api/matches/{match}/me", headers={"Authorization": f"Bearer {seat}"})
    view = mine.get_json()
    conforms(doc, "MatchView", view)
    assert view["ruleset"] == TINY and view["options"] == ["any"] and view["stakes"] == 3
    public = client.get(f"/api/matches/{match}").get_json()
    conforms(doc, "MatchView", public)
    with pytest.raises(ValidationError, match="is not valid"):
        conforms(doc, "MatchView", {**public, "map": {}})  # a key Tiny Duel's view has not
