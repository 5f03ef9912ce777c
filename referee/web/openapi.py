"""The OpenAPI document of the JSON API (:mod:`referee.web.api` serves it at
``/api/openapi.json``): the game-agnostic base in ``openapi.json`` beside this
module, with each registered game's parts made from its ruleset."""

from __future__ import annotations

import json
import re
from collections.abc import Collection
from functools import lru_cache
from pathlib import Path
from typing import Any

from referee.orderschema import public_schema
from referee.ruleset import DEFAULT_RULESET, Phase, Ruleset, Setting, get_ruleset, ruleset_names

OPENAPI = Path(__file__).with_name("openapi.json")


def openapi_document() -> dict[str, Any]:
    """The OpenAPI 3 description of this API: the game-agnostic base kept beside
    this module, whose ``x-generated`` schemas (``MatchView``, ``CreateMatch``,
    ``OrderBody``, ``Result``, ``MatchFile``, ``Audit``) are made here from the
    registered rulesets, each game's own parts named ``<Game>...`` (see
    :meth:`referee.ruleset.Ruleset.openapi_components`). Made once per set of
    registered games: registering or unregistering one makes it again."""
    return _openapi_document(tuple((name, type(get_ruleset(name))) for name in ruleset_names()))


@lru_cache(maxsize=8)
def _openapi_document(registered: tuple[tuple[str, type[Ruleset]], ...]) -> dict[str, Any]:
    doc: dict[str, Any] = json.loads(OPENAPI.read_text(encoding="utf-8"))
    schemas: dict[str, Any] = doc["components"]["schemas"]
    base = dict(schemas)
    games = [get_ruleset(name) for name, _ in registered]
    prefixes = {rules.name: prefix(rules.name) for rules in games}
    for rules in games:
        for name, made in _game_schemas(base, rules, prefixes[rules.name]).items():
            if name in schemas:
                raise ValueError(f"{rules.name}: the OpenAPI schema {name} is made twice")
            schemas[name] = made

    def each(role: str, fallback: dict[str, Any]) -> list[dict[str, Any]]:
        found = [_ref(prefixes[r.name] + role) for r in games if prefixes[r.name] + role in schemas]
        return found + ([fallback] if len(found) < len(games) else [])

    def union(name: str, key: str, options: list[dict[str, Any]]) -> None:
        schemas[name] = {"description": base[name]["description"], key: options}

    union("MatchView", "oneOf", [_ref(prefixes[r.name] + "MatchView") for r in games])
    schemas["MatchView"]["discriminator"] = {
        "propertyName": "ruleset",
        "mapping": {r.name: SCHEMAS + prefixes[r.name] + "MatchView" for r in games},
    }
    union("CreateMatch", "oneOf", [_ref(prefixes[r.name] + "CreateMatch") for r in games])
    union("OrderBody", "anyOf", [_ref(prefixes[r.name] + "OrderBody") for r in games])
    union("Result", "anyOf", each("Result", {"type": "object"}))
    union("MatchFile", "anyOf", each("MatchFile", {"type": "object"}))
    union("Audit", "anyOf", each("Audit", {"type": "object"}))
    left = sorted(name for name, schema in schemas.items() if GENERATED in schema)
    if left:
        raise ValueError(f"openapi.json: no maker for the generated schemas {', '.join(left)}")
    return doc


SCHEMAS = "#/components/schemas/"
GENERATED = "x-generated"  # a base schema openapi_document makes from the rulesets


def _ref(name: str) -> dict[str, Any]:
    return {"$ref": SCHEMAS + name}


def prefix(ruleset: str) -> str:
    """The prefix of a game's schema names: ``rocky-river`` gives ``RockyRiver``."""
    return "".join(p[:1].upper() + p[1:] for p in re.split(r"[^A-Za-z0-9]+", ruleset) if p)


def _rehome(
    schema: Any, own: Collection[str], base: Collection[str], prefix: str, game: str
) -> Any:
    """``schema`` with its references to the game's own schemas prefixed; a
    reference to neither the game's nor the base's schemas is refused."""
    if isinstance(schema, list):
        return [_rehome(v, own, base, prefix, game) for v in schema]
    if not isinstance(schema, dict):
        return schema
    out = {k: _rehome(v, own, base, prefix, game) for k, v in schema.items()}
    target = schema.get("$ref")
    if isinstance(target, str):
        name = target.removeprefix(SCHEMAS)
        if target.startswith(SCHEMAS) and name in own:
            out["$ref"] = SCHEMAS + prefix + name
        elif not (target.startswith(SCHEMAS) and name in base):
            raise ValueError(f"{game}: openapi_components refers to {target}, which is not known")
    return out


def _setting_schema(setting: Setting) -> dict[str, Any]:
    """The JSON Schema of a game's typed setting (see :func:`check_game_settings`)."""
    choices = list(setting.choices)
    value: dict[str, Any]
    if setting.kind == "flag":
        value = {"type": "boolean"}
    elif setting.kind == "choice":
        value = {"type": "string", "enum": choices}
    elif setting.kind == "order":
        every = len(choices)
        item = {"type": "string", "enum": choices}
        value = {"type": "array", "items": item, "minItems": every, "maxItems": every}
        value["uniqueItems"] = True
    else:
        name = {"type": "string", "minLength": 1, "maxLength": 40}
        value = {"type": "object", "propertyNames": {"enum": choices}}
        value["additionalProperties"] = name
    default = json.loads(json.dumps(setting.default))
    about = setting.label + (f" ({setting.help})" if setting.help else "")
    value["description"] = f"{about}. Default {json.dumps(default)}."
    value["default"] = default
    return value


def _game_schemas(base: dict[str, Any], rules: Ruleset, prefix: str) -> dict[str, Any]:
    """One game's schemas: its own (:meth:`Ruleset.openapi_components`, renamed)
    and those made from its phases, settings, set-up keys and players."""
    own = rules.openapi_components()
    out = {prefix + k: _rehome(v, own, base, prefix, rules.name) for k, v in own.items()}
    seats = {"minItems": rules.min_players, "maxItems": rules.max_players}

    settings = dict(base["ServiceSettings"]["properties"])
    settings.update({s.key: _setting_schema(s) for s in rules.settings})
    out[prefix + "Settings"] = {
        "type": "object",
        "description": f"{rules.title}'s settings: the service's and the game's own.",
        "additionalProperties": False,
        "properties": settings,
    }
    out[prefix + "SettingsOut"] = {
        "allOf": [_ref(prefix + "Settings"), {"type": "object", "required": list(settings)}]
    }

    shared = base["CreateShared"]
    setup = out.get(prefix + "Setup", {})
    create = {"name": shared["properties"]["name"]}
    create.update({key: setup.get("properties", {}).get(key, {}) for key in rules.setup_keys})
    create["players"] = {**shared["properties"]["players"], **seats}
    create["settings"] = {
        **shared["properties"]["settings"],
        "anyOf": [_ref(prefix + "Settings"), {"type": "null"}],
    }
    for key in ("notify", "schedule"):  # issue 14: the same for every game
        create[key] = shared["properties"][key]
    ruleset: dict[str, Any] = {"type": "string", "const": rules.name}
    required = [*shared["required"], *(k for k in setup.get("required", ()) if k in create)]
    if rules.name == DEFAULT_RULESET:
        ruleset["default"] = rules.name
    else:
        required.append("ruleset")
    create["ruleset"] = ruleset
    out[prefix + "CreateMatch"] = {
        "type": "object",
        "title": rules.title,
        "required": required,
        "additionalProperties": False,
        "properties": create,
    }

    fields = base["OrderFields"]["properties"]
    by_key: dict[str, list[Phase]] = {}
    for phase in rules.phases:
        by_key.setdefault(phase.order_key, []).append(phase)
    bodies = []
    for key, phases in by_key.items():
        values = [public_schema(p.schema) for p in phases]
        bodies.append(
            {
                "type": "object",
                "title": f"{rules.title}: {', '.join(p.name for p in phases)}",
                "required": [key],
                "additionalProperties": False,
                "properties": {
                    "seat": fields["seat"],
                    key: values[0] if len(values) == 1 else {"anyOf": values},
                    "round": fields["round"],
                },
            }
        )
    keys = ", ".join(f"`{key}`" for key in by_key)
    out[prefix + "OrderBody"] = {
        "description": f"A {rules.title} order: exactly one of {keys}, the open round's.",
        "oneOf": bodies,
    }

    # an export is the game's match file with the keys every export adds (issue 27):
    # a game's own MatchFile, which may allow no other key, has them too
    match_file = out.get(prefix + "MatchFile")
    if isinstance(match_file, dict) and "properties" in match_file:
        added = base["ExportKeys"]["properties"]
        match_file["properties"] = {**added, **match_file["properties"]}

    view = base["ViewShared"]
    game = out.get(prefix + "View", {})
    properties = {**view["properties"], **game.get("properties", {})}
    phase_names = {"properties": {"phase": {"enum": [p.name for p in rules.phases]}}}
    properties.update(
        ruleset={"type": "string", "const": rules.name},
        settings=_ref(prefix + "SettingsOut"),
        players={**view["properties"]["players"], **seats},
        rounds={"type": "array", "items": {"allOf": [_ref("Round"), phase_names]}},
    )
    made: dict[str, Any] = {
        "type": "object",
        "title": rules.title,
        "description": f"A {rules.title} match as one viewer may see it.",
        "required": list(dict.fromkeys([*view["required"], *game.get("required", ())])),
        "properties": properties,
    }
    if "additionalProperties" in game:
        made["additionalProperties"] = game["additionalProperties"]
    out[prefix + "MatchView"] = made
    return out
