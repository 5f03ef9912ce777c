"""Orders checked against their phase's JSON Schema (:class:`referee.ruleset.Phase`).

A phase's schema says the shape of an order (a list of strings, an object of
strings, ...); the ruleset's ``check_order`` says the rest. The service checks
every order against its phase's schema first (:meth:`referee.service.Referee.submit_order`),
so a value of the wrong shape is refused the same way in every game and from
every door (API, forms); the OpenAPI document shows the same schemas.

``x-code`` in a schema (at any depth) is the refusal code of a value that does
not match that part; ``order/bad_shape`` where none is given.

Validation uses jsonschema-rs (a compiled validator: a 27-card list checks in
well under a microsecond, against about 100 for the pure-Python one), as every
order on the service's hot path goes through it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import jsonschema_rs

from referee.errors import Problem, RuleError

DEFAULT_CODE = "order/bad_shape"

_VALIDATORS: dict[int, tuple[Mapping[str, Any], Any]] = {}


def _validator(schema: Mapping[str, Any]) -> Any:
    """The compiled validator of ``schema`` (phases' schemas are constants: one
    compile each, found by identity)."""
    hit = _VALIDATORS.get(id(schema))
    if hit is not None and hit[0] is schema:
        return hit[1]
    validator = jsonschema_rs.validator_for(dict(schema))
    if len(_VALIDATORS) > 1000:
        _VALIDATORS.clear()
    _VALIDATORS[id(schema)] = (schema, validator)  # holding the schema keeps its id unique
    return validator


def schema_problems(value: Any, schema: Mapping[str, Any], what: str) -> list[Problem]:
    """Each way ``value`` does not match ``schema``, as a problem naming where."""
    validator = _validator(schema)
    if validator.is_valid(value):
        return []
    problems: list[Problem] = []
    for error in validator.iter_errors(value):
        path = list(error.instance_path)
        where = "/".join(str(p) for p in path)
        code = _code_at(schema, list(error.schema_path))
        at = f"{what}, {_place(path)}" if path else what
        problems.append(Problem(code, f"{at}: {error.message}", where or None))
    return problems


def _place(path: list[Any]) -> str:
    """Where in a value a problem is, for people: list items counted from 1
    ("item 3"), object keys quoted ("'J'"); the problem's ``field`` keeps the
    0-based JSON path ("2") for forms and API clients."""
    return ", ".join(f"item {p + 1}" if isinstance(p, int) else repr(str(p)) for p in path)


def check_against_schema(value: Any, schema: Mapping[str, Any], what: str) -> None:
    """Refuse ``value`` with every problem when it does not match ``schema``."""
    problems = schema_problems(value, schema, what)
    if problems:
        raise RuleError(problems)


def _code_at(schema: Mapping[str, Any], path: list[Any]) -> str:
    """The ``x-code`` of the deepest part of ``schema`` on ``path`` that has one."""
    code = str(schema.get("x-code", DEFAULT_CODE))
    node: Any = schema
    for step in path:
        try:
            node = node[step]
        except (KeyError, IndexError, TypeError):
            break
        if isinstance(node, Mapping) and "x-code" in node:
            code = str(node["x-code"])
    return code


def public_schema(schema: Any) -> Any:
    """``schema`` without its ``x-`` annotations, for the OpenAPI document."""
    if isinstance(schema, Mapping):
        return {k: public_schema(v) for k, v in schema.items() if not str(k).startswith("x-")}
    if isinstance(schema, list):
        return [public_schema(v) for v in schema]
    return schema
