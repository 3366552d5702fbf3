"""``jsonschema.validate``, with each distinct schema checked against its meta-schema and compiled once.

``jsonschema.validate(instance, schema)`` checks the *schema* against jsonschema's meta-schema and builds a new
validator at every call: about 5 ms. nbgrader calls it for every nbgrader cell whenever it reads, checks or
writes a notebook, always with one of its own two schemas (:func:`coursekit.upstream.nbgrader.check_schemas_once`
points it here). :func:`validate` raises what ``jsonschema.validate`` raises: the best-matching error.
"""
import json

import jsonschema

__all__ = ["validate"]

_VALIDATORS = {}  # {schema as sorted JSON: its validator}


def validate(instance, schema) -> None:
    """``jsonschema.validate(instance, schema)``, with each distinct schema checked and compiled once."""
    key = json.dumps(schema, sort_keys=True)
    validator = _VALIDATORS.get(key)
    if validator is None:
        cls = jsonschema.validators.validator_for(schema)
        cls.check_schema(schema)
        validator = _VALIDATORS[key] = cls(schema)
    error = jsonschema.exceptions.best_match(validator.iter_errors(instance))
    if error is not None:
        raise error
