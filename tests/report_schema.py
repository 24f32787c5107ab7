"""The results document's JSON Schema (``ranklens/report/results.schema.json``) and a small
validator for the keywords it uses, shared by the tests that check documents against it."""

from __future__ import annotations

import json
from typing import Any


def validate(instance, schema, root=None, path="$"):
    """A small JSON Schema (2020-12) validator for the keywords results.schema.json uses."""
    root = root or schema
    if "$ref" in schema:
        name = schema["$ref"].split("/")[-1]
        return validate(instance, root["$defs"][name], root, path)
    kinds = schema.get("type")
    if kinds is not None:
        kinds = [kinds] if isinstance(kinds, str) else kinds
        checks = {
            "object": lambda v: isinstance(v, dict),
            "array": lambda v: isinstance(v, list),
            "string": lambda v: isinstance(v, str),
            "number": lambda v: isinstance(v, int | float) and not isinstance(v, bool),
            "integer": lambda v: isinstance(v, int) and not isinstance(v, bool),
            "boolean": lambda v: isinstance(v, bool),
            "null": lambda v: v is None,
        }
        assert any(checks[k](instance) for k in kinds), f"{path}: {instance!r:.60} is not {kinds}"
    if "enum" in schema:
        assert instance in schema["enum"], f"{path}: {instance!r} not in {schema['enum']}"
    if "minimum" in schema:
        assert instance >= schema["minimum"], path
    if isinstance(instance, dict):
        for key in schema.get("required", ()):
            assert key in instance, f"{path}: missing {key!r}"
        properties = schema.get("properties", {})
        extra = schema.get("additionalProperties", True)
        for key, value in instance.items():
            if key in properties:
                validate(value, properties[key], root, f"{path}.{key}")
            elif extra is False:
                raise AssertionError(f"{path}: unexpected {key!r}")
            elif isinstance(extra, dict):
                validate(value, extra, root, f"{path}.{key}")
    if isinstance(instance, list) and "items" in schema:
        for k, value in enumerate(instance):
            validate(value, schema["items"], root, f"{path}[{k}]")


def results_schema() -> dict[str, Any]:
    from importlib import resources

    text = resources.files("ranklens.report").joinpath("results.schema.json").read_text()
    return json.loads(text)
