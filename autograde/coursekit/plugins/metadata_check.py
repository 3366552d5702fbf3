"""nbgrader's check of each cell's nbgrader metadata, with its schema checked once, not at every cell.

nbgrader checks the metadata of every nbgrader cell whenever it reads, checks or writes a notebook
(``nbgrader.nbgraderformat.common.BaseMetadataValidator.validate_cell``), with
``jsonschema.validate(metadata, schema)``. That function first validates the *schema* against
jsonschema's meta-schema and builds a new validator: about 5 ms, about 20 times per graded notebook,
for a schema that is nbgrader's own file. Profiled in a ``make grade`` worker, 0.08 s of CPU per
student went there.

:func:`check_schemas_once` gives that module a ``jsonschema`` whose ``validate`` keeps one validator
per schema (checked against the meta-schema the first time it is seen) and raises what
``jsonschema.validate`` raises: the best-matching error. Everything else is the real module.
Idempotent; it affects only the process that imports the course's plugins.
"""
import json
import types

import jsonschema
from nbgrader.nbgraderformat import common

__all__ = ["check_schemas_once", "validate"]

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


def check_schemas_once() -> None:
    """Point nbgrader's metadata check at :func:`validate` (once; the real jsonschema otherwise)."""
    if getattr(common.jsonschema, "validate", None) is validate:
        return
    stand_in = types.ModuleType("jsonschema", "jsonschema, whose validate() checks each schema once")
    stand_in.__dict__.update({k: v for k, v in vars(jsonschema).items() if not k.startswith("__")})
    stand_in.validate = validate
    common.jsonschema = stand_in
