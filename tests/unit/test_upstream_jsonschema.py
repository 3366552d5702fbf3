"""Does nbgrader's metadata check, with each schema checked once (coursekit/upstream/nbgrader.py and jsonschema.py),
accept and refuse exactly what ``jsonschema.validate`` does, build one validator per schema, and
leave the rest of jsonschema as it is?"""
import jsonschema
import pytest
from nbformat.v4 import new_code_cell
from nbgrader.nbgraderformat import MetadataValidator, common

from coursekit.upstream import jsonschema as schema_once
from coursekit.upstream import nbgrader as upstream_nbgrader

GOOD = {"schema_version": 3, "grade": True, "solution": False, "locked": True, "points": 4, "grade_id": "test1"}

# (what is changed in a test cell's metadata, as nbgrader's own schema would judge it)
CASES = [
    ("as released", {}),
    ("points as text", {"points": "four"}),
    ("negative points", {"points": -1}),
    ("grade as a string", {"grade": "yes"}),
    ("no grade_id", {"grade_id": None}),
    ("an extra key", {"colour": "red"}),
    ("a task cell", {"task": True, "grade": False, "points": 0}),
    ("empty grade_id", {"grade_id": ""}),
]


def _metadata(change: dict) -> dict:
    meta = {**GOOD, **change}
    return {k: v for k, v in meta.items() if v is not None}


def _outcome(check, instance, schema):
    try:
        check(instance, schema)
    except jsonschema.ValidationError as error:
        return ("refused", error.message, list(error.path), list(error.schema_path))
    return ("accepted",)


@pytest.mark.parametrize("name, change", CASES, ids=[name for name, _ in CASES])
def test_is_every_verdict_jsonschemas_own(name, change):
    """Same acceptance, and for a refusal the same best-matching error (message, where, which rule)."""
    schema, instance = MetadataValidator().schema, _metadata(change)
    assert _outcome(schema_once.validate, instance, schema) == _outcome(jsonschema.validate, instance, schema)



@pytest.fixture(autouse=True, scope="module")
def _applied():
    """What the grading workers do before they build nbgrader's app."""
    upstream_nbgrader.check_schemas_once()


def test_does_nbgraders_validator_go_through_it_and_still_refuse_bad_metadata():
    """nbgrader's own validate_cell uses the stand-in, and still raises on bad points."""
    assert common.jsonschema.validate is schema_once.validate
    cell = new_code_cell("pass")
    cell.metadata["nbgrader"] = _metadata({})
    MetadataValidator().validate_cell(cell)
    cell.metadata["nbgrader"] = _metadata({"points": "four"})
    with pytest.raises(jsonschema.ValidationError, match="'four' is not of type 'number'"):
        MetadataValidator().validate_cell(cell)


def test_is_each_schema_checked_and_compiled_once(monkeypatch):
    """Twenty cells, each with a new validator object as nbgrader makes them: one compiled validator;
    a broken schema is refused as jsonschema.validate refuses it."""
    monkeypatch.setattr(schema_once, "_VALIDATORS", {})
    checked = []
    real = jsonschema.Draft4Validator.check_schema
    monkeypatch.setattr(jsonschema.Draft4Validator, "check_schema",
                        classmethod(lambda cls, schema: (checked.append(1), real.__func__(cls, schema))))
    for _ in range(20):
        schema_once.validate(_metadata({}), MetadataValidator().schema)
    assert len(checked) == 1 and len(schema_once._VALIDATORS) == 1
    broken = {"$schema": "http://json-schema.org/draft-04/schema#", "type": "no such type"}
    with pytest.raises(jsonschema.SchemaError):
        jsonschema.validate({}, broken)
    with pytest.raises(jsonschema.SchemaError):
        schema_once.validate({}, broken)


def test_is_it_idempotent_and_the_rest_of_jsonschema_untouched():
    before = common.jsonschema
    upstream_nbgrader.check_schemas_once()
    assert common.jsonschema is before
    assert common.jsonschema.ValidationError is jsonschema.ValidationError
    assert jsonschema.validate is not schema_once.validate  # the real module is not changed
