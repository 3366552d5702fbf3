"""Does the similarity section find every planted copy, rank it above all independent work, and flag nothing else?

The class is tests/support/planted_pairs.py: one student per row of the mistake table (independent work:
different bugs, different styles), both sides of every planted copy (renamed variables, other comments,
reordered lines, a loop as a comprehension, a function split in two, `_ = 0` after every line, written answers
with a few words changed in Chinese and in English) and two students who each wrote what the release spells out,
as submitted notebooks; no gradebook, no kernel. The separation
(lowest planted score against highest independent one) is printed and kept in autograde/README.md.
"""
import itertools
import random

import nbformat
import pytest

from coursekit.paths import ASSIGNMENT
from coursekit.report.similarity import CODE_UNIT, Prints, common_limit, find_similar, unit_scores
from coursekit.settings import SIMILARITY_THRESHOLD
from support import mistakes
from support.planted_pairs import (PLANTED, PLANTED_ANSWERS, SPELLED_OUT, class_notebooks, planted_pairs,
                                   write_course, write_notebooks)


@pytest.fixture(scope="module")
def compared(tmp_path_factory):
    """The planted class and three students who handed the release back untouched, compared at the default
    threshold: (Similarity, {pair: score})."""
    course = tmp_path_factory.mktemp("planted")
    release = mistakes.release()
    notebooks = class_notebooks(release)
    untouched = {f"untouched_{i}": release for i in range(3)}
    write_course(course, release)
    write_notebooks(course, {**notebooks, **untouched}, stage="submitted")
    similarity = find_similar(course, ASSIGNMENT, [*notebooks, *untouched], SIMILARITY_THRESHOLD)
    return similarity, {frozenset((p.first, p.second)): p.score for p in similarity.pairs}


def _highest_independent(scores: dict) -> tuple:
    independent = {pair: score for pair, score in scores.items() if pair not in planted_pairs()}
    return max(independent.items(), key=lambda item: item[1], default=(frozenset(), 0.0))


@pytest.mark.parametrize("row", [*PLANTED, *PLANTED_ANSWERS], ids=lambda row: row.name)
def test_is_the_planted_copy_flagged_and_ranked_above_every_independent_pair(compared, row):
    similarity, scores = compared
    pair = frozenset(row.students)
    (first, second), highest = _highest_independent(scores)
    assert scores.get(pair, 0.0) >= similarity.threshold, (row.how, scores.get(pair))
    assert scores[pair] > highest, f"{row.name} {scores[pair]:.2f} ≤ {first} and {second} {highest:.2f}"


def test_is_no_pair_of_independent_work_flagged_at_the_default_threshold(compared):
    """The mistake table's solutions (and the new originals beside them): no two flagged; the separation printed."""
    similarity, scores = compared
    flagged = {frozenset((p.first, p.second)) for p in similarity.flagged}
    assert flagged == planted_pairs()
    lowest = min(scores[pair] for pair in planted_pairs())
    pair, highest = _highest_independent(scores)
    print(f"\nseparation: lowest planted {lowest:.3f}, highest independent {highest:.3f} ({' and '.join(sorted(pair))}),"
          f" threshold {SIMILARITY_THRESHOLD}")
    assert highest < SIMILARITY_THRESHOLD <= lowest


@pytest.mark.parametrize("row", SPELLED_OUT, ids=lambda row: row.name)
def test_is_what_the_release_spells_out_nobodys_copy_in_any_class_size(compared, row, tmp_path):
    """Two students who each wrote what the stubs' comments say and the master's softmax, in names of their own:
    under the threshold in the planted class, and in a class of only the two of them (too small for the class's
    own common ground to count)?"""
    similarity, scores = compared
    assert scores.get(frozenset(row.students), 0.0) < similarity.threshold, row.how
    release = mistakes.release()
    write_course(tmp_path, release)
    write_notebooks(tmp_path, class_notebooks(release, only=row.students), stage="submitted")
    alone = find_similar(tmp_path, ASSIGNMENT, row.students, SIMILARITY_THRESHOLD)
    assert alone.students == 2 and not alone.flagged, [(p.first, p.second, p.score) for p in alone.pairs]


def test_are_students_who_left_the_stub_alike_to_nobody(compared):
    """Three students who handed the release back untouched: in no pair, not even with each other?"""
    similarity, _ = compared
    assert not [p for p in similarity.pairs if "untouched" in p.first + p.second]
    assert {f"untouched_{i}" for i in range(3)} <= similarity.work.keys()  # compared, not left out


def test_does_each_match_name_the_cells_where_the_copy_lies(compared):
    """The copied written answer's match is its question; the copied code's names the functions' cells?"""
    similarity, _ = compared
    by_pair = {frozenset((p.first, p.second)): p for p in similarity.pairs}
    for row in PLANTED_ANSWERS:
        assert by_pair[frozenset(row.students)].matches[0].unit == row.question
        assert by_pair[frozenset(row.students)].matches[0].cells == ((ASSIGNMENT, row.question),)
    split = by_pair[frozenset(PLANTED[3].students)].matches[0]
    assert split.unit == CODE_UNIT and (ASSIGNMENT, "student_softmax") in split.cells


def _pairwise(held: dict, limit: int) -> dict:
    """The oracle: every pair compared in Python, one by one, with the rule of the module docstring (``held``:
    {student: Prints})."""
    holders = {}
    for student, prints in held.items():
        for h in prints.work:
            holders.setdefault(h, set()).add(student)
    weight = {h: max(0.0, min(1.0, 1 - (len(s) - 2) / (limit - 1))) for h, s in holders.items()}
    scores = {}
    for a, b in itertools.combinations(sorted(held), 2):
        shared = sum(weight[h] for h in held[a].own & held[b].own if len(holders[h]) <= limit)
        if shared:
            scores[(a, b)] = 2 * shared / (len(held[a].work) + len(held[b].work))
    return scores


def test_does_the_index_give_the_scores_of_comparing_every_pair_one_by_one():
    """Random classes of fingerprints, some of each student's the release's common ground: the inverted index's
    scores equal the pair-by-pair oracle's?"""
    rng = random.Random(7)
    for students in (2, 9, 40):
        work = {f"s{i:02d}": {rng.randrange(60) for _ in range(rng.randrange(0, 25))} for i in range(students)}
        held = {s: Prints(frozenset(w), frozenset(h for h in w if h % 5)) for s, w in work.items()}  # % 5: ground
        limit = common_limit(students)
        scores, common = unit_scores(held, limit)
        oracle = _pairwise(held, limit)
        assert scores.keys() == oracle.keys() and all(abs(scores[p] - oracle[p]) < 1e-9 for p in oracle)
        counts = {h: sum(h in s for s in work.values()) for h in set().union(*work.values())}
        assert common == {h for h, n in counts.items() if n > limit}


def test_is_the_common_ground_a_share_of_the_class_with_a_floor():
    assert [common_limit(n) for n in (2, 10, 50, 51, 300)] == [5, 5, 5, 6, 30]


def test_is_an_assignment_without_a_source_reported_as_not_compared(tmp_path):
    """No source/<assignment>/: nothing compared, and the reason names the folder?"""
    similarity = find_similar(tmp_path, "ps9", ["s1"], SIMILARITY_THRESHOLD)
    assert similarity.pairs == [] and str(tmp_path / "source" / "ps9") in similarity.problem


def test_does_ps1_compare_only_what_its_students_wrote(tmp_path):
    """nbgrader's docs course, its release made from the source with nbgrader's own stubs: the students who handed
    it back untouched or with only a hostile cell added are in no pair, nor the two whose one shared answer is the
    source's own solution (common ground); two who share a loop of their own are listed with the cells where it
    lies?"""
    from coursekit.stubs import AssignmentStubs
    from support import ps1

    ps1.add_source(tmp_path)
    release = {name: AssignmentStubs().preprocess(nbformat.read(tmp_path / "source" / ps1.ASSIGNMENT / f"{name}.ipynb",
                                                                as_version=4), {"nbgrader": {"assignment": "ps1"}})[0]
               for name in ps1.NOTEBOOKS}
    students = ps1.class_of(release)
    loop = ps1._answered(students["ps1_correct"]["problem1"], "sum_of_squares",
                         "def sum_of_squares(n):\n    total = 0\n    for value in squares(n):\n"
                         "        total = total + value\n    return total\n")
    students.update({name: {**students["ps1_correct"], "problem1": loop} for name in ("ps1_loop_a", "ps1_loop_b")})
    for student, notebooks in students.items():
        ps1.submit(tmp_path, student, notebooks)
    similarity = find_similar(tmp_path, ps1.ASSIGNMENT, students, SIMILARITY_THRESHOLD)
    assert similarity.students == len(students) and not similarity.problem
    paired = {student for pair in similarity.pairs for student in (pair.first, pair.second)}
    assert paired == {"ps1_loop_a", "ps1_loop_b"}  # ps1_correct and ps1_wrong_squares: the source's sum_of_squares
    assert similarity.pairs[0].matches[0].cells == (("problem1", "sum_of_squares"),)
