"""Orders checked against their phase's JSON Schema (:class:`referee.ruleset.Phase`).

A phase's schema says the shape of an order (a list of strings, an object of
strings, ...); the ruleset's ``check_order`` says the rest. The API checks a
body's order against the schema first, so a value of the wrong shape is refused
the same way in every game; the OpenAPI document shows the same schemas.

``x-code`` in a schema (at any depth) is the refusal code of a value that does
not match that part; ``order/bad_shape`` where none is given.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import lru_cache
from typing import Any

from jsonschema import Draft202012Validator

from referee.errors import Problem, RuleError

DEFAULT_CODE = "order/bad_shape"


@lru_cache(maxsize=256)
def _validator(schema_json: str) -> Draft202012Validator:
    import json

    schema = json.loads(schema_json)
    Draft202012Validator.check_schema(schema)
    return Draft202012Validator(schema)


def schema_problems(value: Any, schema: Mapping[str, Any], what: str) -> list[Problem]:
    """Each way ``value`` does not match ``schema``, as a problem naming where."""
    import json

    validator = _validator(json.dumps(schema, sort_keys=True))
    problems: list[Problem] = []
    for error in sorted(validator.iter_errors(value), key=lambda e: list(map(str, e.path))):
        where = "/".join(str(p) for p in error.path)
        code = _code_at(schema, list(error.schema_path))
        at = f"{what} at {where}" if where else what
        problems.append(Problem(code, f"{at}: {error.message}", where or None))
    return problems


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
