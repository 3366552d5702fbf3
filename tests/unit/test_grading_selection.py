"""Does coursekit.grading.selection pick the right students: stable shards, only the missing ones, FORCE?"""
import pytest

from coursekit.grading.selection import Shard, graded_students, parse_shard, submitted_students, to_grade

STUDENTS = [f"student{k:03d}" for k in range(300)]


def test_does_every_student_land_in_exactly_one_shard():
    """For n = 1..5 shards, each student is held by one shard, and no shard of 300 is empty or lopsided?"""
    for count in range(1, 6):
        shards = [Shard(i, count) for i in range(count)]
        assert all(sum(s.holds(student) for s in shards) == 1 for student in STUDENTS)
        sizes = [sum(map(shard.holds, STUDENTS)) for shard in shards]
        assert min(sizes) > 300 / count * 0.7, sizes


def test_is_the_split_stable_whoever_else_submitted():
    """A student's shard depends on the id alone: the same with 3 or 300 classmates, run after run?"""
    shard = Shard(1, 3)
    alone = [s for s in STUDENTS[:3] if shard.holds(s)]
    assert alone == [s for s in STUDENTS if shard.holds(s)][:len(alone)] or alone == []
    assert [Shard(1, 3).holds(s) for s in STUDENTS] == [shard.holds(s) for s in STUDENTS]


@pytest.mark.parametrize("text, expected", [("", (0, 1)), ("  ", (0, 1)), ("0/2", (0, 2)), (" 3 / 4 ", (3, 4))])
def test_does_shard_text_parse(text, expected):
    """SHARD unset means the whole class; "i/n" is shard i (0-based) of n?"""
    shard = parse_shard(text)
    assert (shard.index, shard.count) == expected


@pytest.mark.parametrize("text, fragment", [("2/2", "0 <= i < n"), ("1/0", "0 <= i < n"), ("1-2", "i/n"),
                                            ("a/b", "i/n")])
def test_does_a_bad_shard_say_what_is_expected(text, fragment):
    """A wrong SHARD names the rule and echoes the value?"""
    with pytest.raises(ValueError, match=fragment) as info:
        parse_shard(text)
    assert text.split("/")[0].strip() in str(info.value)


def _course(tmp_path, submitted, autograded, stamps=None):
    for student in submitted:
        folder = tmp_path / "submitted" / student / "hw"
        folder.mkdir(parents=True)
        (folder / "hw.ipynb").write_text("{}")
    for student in autograded:
        folder = tmp_path / "autograded" / student / "hw"
        folder.mkdir(parents=True)
        (folder / "hw.ipynb").write_text("{}")
    for (where, student), stamp in (stamps or {}).items():
        (tmp_path / where / student / "hw" / "timestamp.txt").write_text(stamp)
    return tmp_path


def test_is_graded_both_on_disk_and_in_the_gradebook(tmp_path):
    """Graded = autograded notebook present AND submission in the gradebook; either missing -> graded again?"""
    course = _course(tmp_path, ["a", "b", "c", "d"], ["a", "b", "d"])
    submitted = submitted_students(course, "hw")
    assert submitted == ["a", "b", "c", "d"]
    assert graded_students(course, "hw", submitted, in_gradebook={"a", "c", "d"}) == {"a", "d"}


def test_is_a_newer_resubmission_graded_again(tmp_path):
    """As nbgrader: a submission newer than its autograded copy is missing; an older or equal one is not?"""
    stamps = {("submitted", "new"): "2026-11-30 10:00:00 UTC", ("autograded", "new"): "2026-11-29 10:00:00 UTC",
              ("submitted", "old"): "2026-11-28 10:00:00 UTC", ("autograded", "old"): "2026-11-29 10:00:00 UTC"}
    course = _course(tmp_path, ["new", "old"], ["new", "old"], stamps)
    assert graded_students(course, "hw", ["new", "old"], {"new", "old"}) == {"old"}


def test_does_force_take_everyone_of_the_shard():
    """Missing ones only by default; FORCE takes every student of the shard, and only of the shard?"""
    whole, shard = Shard(0, 1), Shard(0, 2)
    graded = {"student000", "student001"}.__contains__
    assert to_grade(STUDENTS[:4], graded, whole) == STUDENTS[2:4]
    assert to_grade(STUDENTS[:4], graded, whole, force=True) == STUDENTS[:4]
    assert to_grade(STUDENTS, graded, shard, force=True) == [s for s in STUDENTS if shard.holds(s)]


def test_is_an_empty_course_no_students(tmp_path):
    """No submitted/ folder yet: nobody to grade (not an error)?"""
    assert submitted_students(tmp_path, "hw") == []
