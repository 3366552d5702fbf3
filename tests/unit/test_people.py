"""Does every page name a student as the gradebook does: their name, the id beside it only where two could be
confused, the id alone where the gradebook has no name? (coursekit/people.py)"""
import pytest
from nbgrader.api import Gradebook

from coursekit.people import People, full_name, people_of, read_people
from support.synthetic_class import empty_gradebook


@pytest.mark.parametrize("first, last, name", [("Wei", "Li", "Wei Li"), ("伟", "李", "李伟"), ("", "Li", "Li"),
                                               (None, None, ""), ("  Ana ", "", "Ana")])
def test_is_a_name_written_in_the_order_its_script_writes_it(first, last, name):
    """First then last name, one space; a Chinese name family name first, with no space; nothing when unnamed?"""
    assert full_name(first, last) == name


def test_is_a_student_called_by_name_with_the_id_only_where_needed():
    """Named: the name alone; two students of one name (case aside): each with their id; no name: the id?"""
    people = People({"lti-aaa": "Li Wei", "lti-bbb": "Wang Fang", "lti-ccc": "wang fang", "s9": ""})
    assert people.called("lti-aaa") == "Li Wei"
    assert people.called("lti-bbb") == "Wang Fang (lti-bbb)" and people.called("lti-ccc") == "wang fang (lti-ccc)"
    assert people.called("s9") == "s9" and people.called("unknown") == "unknown"
    assert people.name("lti-aaa") == "Li Wei" and people.name("s9") == ""


def test_are_the_names_the_gradebooks(tmp_path):
    """Read from nbgrader's gradebook (the roster an LMS wrote there); a gradebook not made yet is not made by asking?"""
    url = empty_gradebook(tmp_path / "gradebook.db")
    with Gradebook(url) as gradebook:
        gradebook.update_or_create_student("lti-5sj4xbek4kip6amz", first_name="Wei", last_name="Li", email="w@x")
        gradebook.update_or_create_student("s2")
        assert people_of(gradebook.students).names == {"lti-5sj4xbek4kip6amz": "Wei Li", "s2": ""}
    assert read_people(url).called("lti-5sj4xbek4kip6amz") == "Wei Li"
    missing = tmp_path / "none" / "gradebook.db"
    assert read_people(f"sqlite:///{missing}") == People() and not missing.exists()
