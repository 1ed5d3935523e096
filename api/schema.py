"""What drf-spectacular cannot see in the serializers, added to the OpenAPI document after it is
built (SPECTACULAR_SETTINGS' POSTPROCESSING_HOOKS), so the schema states every check the server
makes on a request's text."""

NO_NUL = "^[^\\x00]*$"


def text_without_nul(result, generator, request, public):
    """DRF refuses NUL in every CharField (PostgreSQL cannot store it): each text of a request
    body with no pattern of its own gets one that says so (the serializers' own patterns exclude
    NUL themselves)."""
    components = result.get("components", {}).get("schemas", {})
    seen: set[str] = set()
    for path in result.get("paths", {}).values():
        for operation in path.values():
            for content in (operation.get("requestBody") or {}).get("content", {}).values() if isinstance(operation, dict) else []:
                _strings(content.get("schema"), components, seen)
    return result


def _strings(schema, components: dict, seen: set[str]) -> None:
    if not isinstance(schema, dict):
        return
    ref = schema.get("$ref", "")
    if ref:
        name = ref.rsplit("/", 1)[-1]
        if name not in seen:
            seen.add(name)
            _strings(components.get(name), components, seen)
        return
    if schema.get("type") == "string" and not ({"pattern", "format", "enum"} & schema.keys()):
        schema["pattern"] = NO_NUL
    for sub in schema.get("properties", {}).values():
        _strings(sub, components, seen)
    for key in ("items", "additionalProperties"):
        _strings(schema.get(key), components, seen)
    for key in ("allOf", "oneOf", "anyOf"):
        for sub in schema.get(key, []):
            _strings(sub, components, seen)
