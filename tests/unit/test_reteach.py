"""Does every mistake the diagnosis can name come with something to reteach, and a name, in each language of the
course (attnkit/reteach.py, attnkit/mistake_names.py)?"""
import pytest

from attnkit.bugs import RULES
from attnkit.edition import CJK
from attnkit.language import LANGUAGES
from attnkit.mistake_names import mistake_name, names
from attnkit.reteach import RETEACH, known_bug_ids, reteach, table
from support.mistakes import DIAGNOSED, MISTAKES


@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_bug_id_attnkit_can_produce_has_a_reteach_entry(lang):
    """Is each named rule and each <stage>_<kind> generic finding in the reteach table of each language?"""
    missing = sorted(known_bug_ids() - set(table(lang)))
    assert not missing, f"no reteach entry for {missing}: add them to attnkit/reteach.py"


@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_table_names_no_bug_attnkit_cannot_produce(lang):
    """Is every entry of the table a bug id attnkit knows (no typo, no removed rule)?"""
    assert sorted(set(table(lang)) - known_bug_ids()) == []


def test_is_the_english_table_english():
    """No Chinese in an English note (the course set to English reads only English)?"""
    assert not [bug for bug, text in table("en").items() if CJK.search(text)]
    assert "attnkit.po" in reteach("scores_new_mistake", "en") and not CJK.search(
        reteach("scores_new_mistake", "en"))


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
    assert "reteach.scores_new_mistake" in reteach("scores_new_mistake")
    assert "scores_new_mistake" in reteach("scores_new_mistake")


@pytest.mark.parametrize("lang", LANGUAGES)
def test_does_every_bug_id_have_a_name_a_person_reads(lang):
    """Each id attnkit can produce, and no other, named in ``lang`` (English without Chinese), no two alike?"""
    named = names(lang)
    assert set(named) == known_bug_ids()
    assert len(set(named.values())) == len(named)
    assert lang != "en" or not [name for name in named.values() if CJK.search(name)]
    assert mistake_name("a_newer_id", lang) == "a_newer_id"
