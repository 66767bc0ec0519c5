"""
Schemathesis hooks of the fuzzing run (test/api/fuzz.test.ts), loaded through SCHEMATHESIS_HOOKS.

`positive_data_acceptance` expects every request the document allows to be accepted. The document
states every rule JSON Schema can state (types, lengths, patterns, formats, required keys, key
counts; api/openapi-schema.ts), but some rules of the API are about other data, not the shape:
a reference to a record that does not exist, a field that applies only when another has some
value, a period longer than a year, a cron expression, a time zone. This check replaces the
built-in one and accepts a 422 for valid-looking data only when every refused field is refused by
one of those rules, named by its error type below; any other refusal of schema-valid data fails.
"""
import schemathesis

# Error types (the `fields[].type` of a 422) of rules the document cannot state as JSON Schema.
SEMANTIC_REFUSALS = {
    "any.unknown_reference",  # a referenced record does not exist in this tenant
    "any.unknown",  # a field forbidden by another field's value (Joi when/forbidden)
    "any.required",  # required only when another field has some value (the document's own
    # requirements are in its `required` lists, which schema-valid data always meets)
    "any.ref",  # compared with another field (to >= from)
    "date.min",  # a period bounded relative to another field
    "date.max",
    "number.range",  # bounds set by a referenced record (a CSAT score by its survey's scale)
    "alternatives.match",  # one of several shapes chosen by content (cron or interval)
    "any.custom",  # custom rules: cron expressions, time zones, durations, JSON Schemas
    "custom",
    "any.invalid",
    "string.hostname",  # host names and URIs: rules beyond the `format` other validators apply
    "string.uri",
    "string.uriCustomScheme",
    "string.older_than",
    "string.subject_id",  # a data subject named by a contact id, an e-mail address or a phone number
    # (services/privacy-subjects.ts): three shapes told apart by content, phone numbers normalised
}

# Raw message bodies (inbound e-mail) are sent as the bytes generated for them.
schemathesis.serializer.alias("message/rfc822", "application/octet-stream")

# What the built-in check accepts for schema-valid data.
ACCEPTED = {401, 403, 404, 409, 429}


@schemathesis.check
def valid_data_accepted_unless_semantic(ctx, response, case):
    meta = case.meta
    if meta is None or not meta.generation.mode.is_positive:
        return None
    status = response.status_code
    if status < 400 or status in ACCEPTED or status >= 500:  # 5xx: not_a_server_error's concern
        return None
    if status == 422:
        try:
            body = response.json()
        except ValueError:
            body = {}
        # A 422 with its own code is a business rule about stored data or the world (a referenced
        # record missing, a plan without recipients, a mail server that does not answer); the
        # request's shape is judged under VALIDATION_ERROR only.
        if body.get("error_code") not in (None, "VALIDATION_ERROR"):
            return None
        fields = [field for field in body.get("fields") or [] if isinstance(field, dict)]
        if fields and all(field.get("type") in SEMANTIC_REFUSALS for field in fields):
            return None
    raise AssertionError(f"Schema-valid data refused with {status}: {response.text[:400]}")
