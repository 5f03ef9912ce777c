"""The per-game parts of the OpenAPI document follow the ruleset registry: every
registered game adds its order bodies (one per phase, from the phase's schema),
its create body (set-up keys, typed settings, number of players, its name), its
view and its own schemas, and unregistering it takes them away again.

The test-only toy game (tests/toy, High Card: two phases, every kind of
setting, its own schemas referring to one another) is registered by these
tests themselves; the API then serves, takes and answers for it exactly as its
generated schemas say (on SQLite and PostgreSQL).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from flask.testing import FlaskClient
from jsonschema import Draft202012Validator, ValidationError
from openapi_spec_validator import validate
from referencing import Registry
from referencing.jsonschema import DRAFT202012
from toy import Toy, registered

from referee.orderschema import public_schema
from referee.ruleset import (
    EXTRA_RULESETS_ENV,
    Ruleset,
    get_ruleset,
    register,
    ruleset_names,
    unregister,
)
from referee.rulesets.forks_2e.cards import ALL_CARDS
from referee.rulesets.forks_2e.match import resolve as resolve_forks
from referee.web.openapi import openapi_document
from referee.web.openapi import prefix as _prefix

SCHEMAS = "#/components/schemas/"
TOY = Toy.name
FORKS_GOLDEN = Path(__file__).resolve().parents[1] / "golden" / "forks-2e"


@pytest.fixture
def without_toy(monkeypatch: pytest.MonkeyPatch) -> None:
    """No toy game for one test: tests/conftest.py registers it for the whole
    run (through REFEREE_EXTRA_RULESETS, which would register it again)."""
    monkeypatch.delenv(EXTRA_RULESETS_ENV, raising=False)
    unregister(TOY)


@pytest.fixture
def toy(without_toy: None) -> Iterator[None]:
    """The toy game registered by one test alone (the document follows by itself)."""
    with registered():
        yield


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


def test_a_registered_game_adds_its_parts(toy: None) -> None:
    doc = openapi_document()
    check_document(doc)
    rules = get_ruleset(TOY)
    check_game(doc, rules, "Toy")
    check_game(doc, get_ruleset("rocky-river"), "RockyRiver")
    schemas = schemas_of(doc)
    create = schemas["ToyCreateMatch"]
    assert "ruleset" in create["required"]  # not the default game
    assert not {"hand_size", "deck"} & set(create["required"])  # its Setup requires neither
    # its set-up keys, and its own schemas' references to one another, rehomed
    assert create["properties"]["hand_size"] == {"$ref": SCHEMAS + "ToyHandSize"}
    assert create["properties"]["deck"] == {"$ref": SCHEMAS + "ToyDeck"}
    assert schemas["ToyResult"]["properties"]["hand_size"] == {"$ref": SCHEMAS + "ToyHandSize"}
    assert schemas["ToyResult"]["properties"]["winners"]["items"] == {"$ref": SCHEMAS + "Seat"}
    assert "HandSize" not in schemas and "Hint" not in schemas
    # its own Result, prefixed, is what its view refers to, and one of the results
    view = schemas["ToyMatchView"]
    assert view["properties"]["result"] == {"$ref": SCHEMAS + "ToyResult"}
    assert view["properties"]["hint"] == {"$ref": SCHEMAS + "ToyHint"}
    assert view["additionalProperties"] is False
    assert {"ToyResult", "RockyRiverResult"} <= set(ref_names(schemas["Result"], "anyOf"))
    # no MatchFile or Audit of its own: any object is one of those
    assert {"type": "object"} in schemas["MatchFile"]["anyOf"]
    assert {"type": "object"} in schemas["Audit"]["anyOf"]
    # each kind of setting as its schema
    settings = schemas["ToySettings"]["properties"]
    assert settings["double"]["type"] == "boolean"
    assert settings["chart"]["enum"] == ["always", "after-play"]
    assert settings["post_order"]["items"]["enum"] == ["tricks", "scores"]
    assert settings["post_order"]["minItems"] == settings["post_order"]["maxItems"] == 2
    assert settings["post_order"]["default"] == ["tricks", "scores"]
    assert settings["post_titles"]["propertyNames"] == {"enum": ["tricks", "scores"]}
    # bodies of each game's orders, told apart by their key
    conforms(doc, "OrderBody", {"pick": 17, "seat": 2})
    conforms(doc, "OrderBody", {"votes": ["L"], "round": None})
    with pytest.raises(ValidationError, match="is not valid"):
        conforms(doc, "OrderBody", {"pick": 17, "card": 3})


def test_the_document_follows_the_registry_by_itself(without_toy: None) -> None:
    before = openapi_document()
    assert not [name for name in schemas_of(before) if name.startswith("Toy")]
    register(TOY, Toy)
    try:
        assert "ToyOrderBody" in schemas_of(openapi_document())
    finally:
        unregister(TOY)
    assert openapi_document() is before  # made once per set of registered games


def test_unregistering_takes_the_parts_away(toy: None) -> None:
    assert "ToyOrderBody" in schemas_of(openapi_document())
    unregister(TOY)
    doc = openapi_document()
    check_document(doc)
    assert not [name for name in schemas_of(doc) if name.startswith("Toy")]


def test_a_reference_to_an_unknown_schema_is_refused(toy: None) -> None:
    class Broken(Toy):
        name = "broken-toy"

        def openapi_components(self) -> dict[str, Any]:
            return {"View": {"properties": {"hint": {"$ref": SCHEMAS + "Nowhere"}}}}

    register(Broken.name, Broken)
    try:
        with pytest.raises(ValueError, match=r"broken-toy.*Nowhere"):
            openapi_document()
    finally:
        unregister(Broken.name)
    assert "ToyView" in schemas_of(openapi_document())


def test_the_api_answers_a_registered_game_as_described(toy: None, client: FlaskClient) -> None:
    """A toy match through the API: each body sent and each answer match
    the document's generated schemas."""
    doc = client.get("/api/openapi.json").get_json()
    assert doc == openapi_document() and "ToyMatchView" in schemas_of(doc)
    body = {
        "name": "High Card",
        "ruleset": TOY,
        "hand_size": 3,
        "deck": 20,
        "players": [
            {"seat": 1, "name": "Ana", "garnets": 1},
            {"seat": 2, "name": "Bo", "garnets": 2},
        ],
        "settings": {
            "chart": "after-play",
            "post_order": ["scores", "tricks"],
            "post_titles": {"tricks": "Played cards"},
            "hints": True,
            "close_early": True,
        },
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
    assert [r["phase"] for r in opened.get_json()["rounds"]] == ["play"]
    # its settings at work: the post's sections in their order and words, and
    # no scores chart before the first trick
    post = client.get(f"/api/matches/{match}/post").get_json()["post"]
    assert "scores." not in post and post.index("Scores") < post.index("Played cards")

    refused = client.put(
        f"/api/matches/{match}/orders",
        headers={"Authorization": f"Bearer {seat}"},
        json={"card": "17"},
    )
    assert refused.status_code == 422
    errors = refused.get_json()["errors"]
    assert [e["code"] for e in errors] == ["toy/not_a_card"]  # the phase schema's x-code
    assert "is not of type" in errors[0]["message"]  # the shape, refused before the rules

    mine = client.get(f"/api/matches/{match}/me", headers={"Authorization": f"Bearer {seat}"})
    view = mine.get_json()
    conforms(doc, "MatchView", view)
    hand = view["result"]["hand"]
    assert view["ruleset"] == TOY and view["options"] == hand and view["result"]["hand_size"] == 3
    assert view["cards_left"] == 3 and view["hint"]["highest"] == max(hand) <= 20  # its deck
    order = {"card": hand[0]}
    conforms(doc, "OrderBody", order)
    sent = client.put(
        f"/api/matches/{match}/orders", headers={"Authorization": f"Bearer {seat}"}, json=order
    )
    assert sent.status_code == 200, sent.get_json()
    conforms(doc, "Accepted", sent.get_json())
    conforms(
        doc,
        "MatchView",
        client.get(
            f"/api/matches/{match}/me", headers={"Authorization": f"Bearer {seat}"}
        ).get_json(),
    )
    public = client.get(f"/api/matches/{match}").get_json()
    conforms(doc, "MatchView", public)
    with pytest.raises(ValidationError, match="is not valid"):
        conforms(doc, "MatchView", {**public, "map": {}})  # a key the toy's view has not
