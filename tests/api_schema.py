"""Checking API bodies and answers against the service's OpenAPI document
(docs/contracts/rocky-river/API.md), for the tests that drive a game through the
JSON API."""

from __future__ import annotations

from functools import cache
from typing import Any

from jsonschema import Draft202012Validator
from referencing import Registry
from referencing.jsonschema import DRAFT202012

from referee.web.openapi import openapi_document


@cache
def _validator(name: str) -> Draft202012Validator:
    doc = openapi_document()
    registry: Registry[Any] = Registry().with_resource("urn:api", DRAFT202012.create_resource(doc))
    return Draft202012Validator({"$ref": f"urn:api#/components/schemas/{name}"}, registry=registry)


def conforms(name: str, value: Any) -> None:
    """Raise unless ``value`` matches the OpenAPI document's schema ``name``."""
    _validator(name).validate(value)
