"""Does the similarity section say what it is, list the flagged pairs, and open each one side by side?

Chromium opening the section and a pair's page: tests/integration/test_report_similarity_browser.py.
"""
import csv
import datetime
import re

import pytest

from attnkit.edition import CJK
from coursekit.paths import ASSIGNMENT
from coursekit.report.csv_files import write_similarity_csv
from coursekit.report.similarity import find_similar
from coursekit.language import WORDS
from coursekit.report.similarity_page import FOLDER, page_name, section, write_pages
from coursekit.settings import SIMILARITY_THRESHOLD
from support import mistakes
from support.planted_pairs import PLANTED, class_notebooks, write_course, write_notebooks

COPY = PLANTED[0]  # ok_loops and its copy with every variable renamed
STUDENTS = (*COPY.students, "bug_q_qt", "ok_einsum_out")
TIMES = {COPY.students[0]: datetime.datetime(2026, 12, 3, 9, 30, 5)}  # the gradebook's; the copy's: timestamp.txt


@pytest.fixture(scope="module")
def similarity(tmp_path_factory):
    course = tmp_path_factory.mktemp("four")
    release = mistakes.release()
    write_course(course, release)
    write_notebooks(course, class_notebooks(release, only=STUDENTS), stage="submitted")
    (course / "submitted" / COPY.students[1] / ASSIGNMENT / "timestamp.txt").write_text("2026-12-03 09:41:00 UTC")
    return find_similar(course, ASSIGNMENT, STUDENTS, SIMILARITY_THRESHOLD)


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_does_the_section_say_it_is_a_reason_to_look_and_list_the_flagged_pair(similarity, lang):
    heading, body = section(similarity, TIMES, lang)
    assert heading == WORDS.say(lang, "report.similar.heading")
    assert WORDS.say(lang, "report.similar.caveat") in body.replace("&#x27;", "'")
    assert len(similarity.flagged) == 1 and body.count(f"href='{FOLDER}/pair-") == 1
    assert f"href='{FOLDER}/{page_name(similarity.flagged[0])}'" in body
    assert "2026-12-03 09:30:05 UTC" in body and "2026-12-03 09:41:00 UTC" in body
    if lang == "en":
        assert not CJK.findall(body)


def test_does_each_flagged_pair_get_a_page_with_both_students_side_by_side(similarity, tmp_path):
    """Both students, when each submitted, the caveat, the cells side by side with what they share marked; the
    pages of an earlier report are gone; no script?"""
    (tmp_path / FOLDER).mkdir()
    (tmp_path / FOLDER / "pair-000000000000.html").write_text("an earlier report's")
    [path] = write_pages(similarity, TIMES, tmp_path, "en")
    page = path.read_text(encoding="utf-8")
    assert path.name == page_name(similarity.flagged[0]) and len(list((tmp_path / FOLDER).iterdir())) == 1
    assert all(s in page for s in (*COPY.students, "2026-12-03 09:30:05 UTC", "2026-12-03 09:41:00 UTC"))
    assert WORDS.say("en", "report.similar.caveat").replace("'", "&#x27;") in page and "href='../index.html'" in page
    assert page.count("<div class='side'>") == 3 and page.count("<mark>") >= 6 and "<script" not in page
    assert re.search(r"<mark>[^<]*acc \+= Q\[r, t\]\*K\[c, t\]", page)  # the renamed line, marked in the copy


def test_does_similarity_csv_rank_every_pair_near_the_threshold(similarity, tmp_path):
    path = write_similarity_csv(similarity, TIMES, tmp_path)
    with path.open(encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    assert rows[0]["first_student"] == COPY.students[0] and rows[0]["flagged"] == "1"
    assert rows[0]["page"] == f"{FOLDER}/{page_name(similarity.flagged[0])}" and float(rows[0]["code_score"]) > 0.8
    assert "student_softmax" in rows[0]["cells"].split(";")
    assert [float(r["score"]) for r in rows] == sorted((float(r["score"]) for r in rows), reverse=True)
    assert all(r["page"] == "" for r in rows if r["flagged"] == "0")


def test_are_the_pair_and_its_csv_named_as_the_gradebook_names_the_students(similarity, tmp_path):
    """With the students' names (an LMS class: ids such as lti-…): the section's rows and the pair's page name both
    by name, not id; similarity.csv keeps both ids and adds both names?"""
    from coursekit.people import People
    from coursekit.report.labels import Labels

    named = {COPY.students[0]: "Wei Li", COPY.students[1]: "李伟"}
    labels = Labels("zh", people=People(named))
    _, body = section(similarity, TIMES, "zh", labels)
    [path] = write_pages(similarity, TIMES, tmp_path, "zh", labels)
    page = path.read_text(encoding="utf-8")
    for shown in (body, page):
        assert "Wei Li" in shown and "李伟" in shown
        assert not [s for s in COPY.students if re.search(rf">{re.escape(s)}<", shown)], shown
    rows = list(csv.DictReader(write_similarity_csv(similarity, TIMES, tmp_path, People(named)).open(encoding="utf-8")))
    assert (rows[0]["first_student"], rows[0]["first_student_name"]) == (COPY.students[0], "Wei Li")
    assert (rows[0]["second_student"], rows[0]["second_student_name"]) == (COPY.students[1], "李伟")
