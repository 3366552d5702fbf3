"""Does every mistake the diagnosis can name come with something to reteach?"""

from attnkit.bugs import RULES
from attnkit.reteach import RETEACH, known_bug_ids, reteach
from support.mistakes import DIAGNOSED, MISTAKES


def test_every_bug_id_attnkit_can_produce_has_a_reteach_entry():
    """Is each named rule and each <stage>_<kind> generic finding in the reteach table?"""
    missing = sorted(known_bug_ids() - set(RETEACH))
    assert not missing, f"no reteach entry for {missing}: add them to attnkit/reteach.py"


def test_the_table_names_no_bug_attnkit_cannot_produce():
    """Is every entry of the table a bug id attnkit knows (no typo, no removed rule)?"""
    assert sorted(set(RETEACH) - known_bug_ids()) == []


def test_known_ids_include_every_rule():
    """Does known_bug_ids follow attnkit.bugs.RULES rather than a copy of it?"""
    assert {rule.bug for rules in RULES.values() for rule in rules} <= known_bug_ids()


def test_each_diagnosed_mistake_has_its_own_entry():
    """Does every bug id the diagnosis table expects (tests/support/mistakes.py DIAGNOSED) have an entry?"""
    expected = {bug for row in DIAGNOSED for _, bug in row.findings}
    assert sorted(expected - set(RETEACH)) == []


def test_every_mistake_in_the_table_has_an_entry():
    """Does each diagnosis the grading table expects (tests/support/mistakes.py MISTAKES) have an entry?"""
    expected = {m.diagnosis for m in MISTAKES if m.diagnosis}
    assert sorted(expected - set(RETEACH)) == []


def test_an_unknown_bug_id_says_where_to_add_it():
    """Does an id from a newer grader show a note naming the table instead of failing the report?"""
    assert "attnkit/reteach.py" in reteach("scores_new_mistake")
    assert "scores_new_mistake" in reteach("scores_new_mistake")
