"""Does every mistake the diagnosis can name come with something to reteach?"""
import pytest
from test_diagnose import NAMED

from attnkit.bugs import RULES
from attnkit.diagnose import diagnose
from coursekit.report.reteach import RETEACH, known_bug_ids, reteach
from support.mistakes import MISTAKES


def test_every_bug_id_attnkit_can_produce_has_a_reteach_entry():
    """Is each named rule and each <stage>_<kind> generic finding in the reteach table?"""
    missing = sorted(known_bug_ids() - set(RETEACH))
    assert not missing, f"no reteach entry for {missing}: add them to coursekit/reteach.py"


def test_the_table_names_no_bug_attnkit_cannot_produce():
    """Is every entry of the table a bug id attnkit knows (no typo, no removed rule)?"""
    assert sorted(set(RETEACH) - known_bug_ids()) == []


def test_known_ids_include_every_rule():
    """Does known_bug_ids follow attnkit.bugs.RULES rather than a copy of it?"""
    assert {rule.bug for rules in RULES.values() for rule in rules} <= known_bug_ids()


@pytest.mark.parametrize("fns, stage, bug, phrases", NAMED, ids=[case[2] for case in NAMED])
def test_each_diagnosed_mistake_has_its_own_entry(fns, stage, bug, phrases):
    """Does every bug id the real diagnosis reports on the one-mistake implementations have an entry?"""
    for found in diagnose(*fns):
        assert found.bug in RETEACH, found.bug


def test_every_mistake_in_the_table_has_an_entry():
    """Does each diagnosis tests/mistakes.py expects (the course's one table of mistakes) have an entry?"""
    expected = {m.diagnosis for m in MISTAKES if m.diagnosis}
    assert sorted(expected - set(RETEACH)) == []


def test_an_unknown_bug_id_says_where_to_add_it():
    """Does an id from a newer grader show a note naming the table instead of failing the report?"""
    assert "coursekit/reteach.py" in reteach("scores_new_mistake")
    assert "scores_new_mistake" in reteach("scores_new_mistake")
