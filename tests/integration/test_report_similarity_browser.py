"""Does ``make report`` write the similarity section, and does Chromium open a flagged pair side by side from its row?

The planted class (tests/support/planted_pairs.py: the mistake table's independent students and the planted
copies) as a graded course of its own — a synthetic gradebook and the students' notebooks in
``autograded/``, no kernel — reported by ``python -m coursekit.report`` (what ``make report`` runs) in Chinese
and then in English. Each page opens from disk in Debian's Chromium; a click on a row's link opens the pair's
page. The logic (which pairs, which scores) is proved in tests/unit/test_report_similarity.py; here, the
wiring: the command, the files and their permissions, the links, both languages, and that two runs (two
processes, each with its own salt for Python's ``hash``) give the same scores.
"""
import csv
import stat
import subprocess
import sys

import pytest

from coursekit.paths import ASSIGNMENT
from coursekit.language import WORDS
from support.planted_pairs import PLANTED, planted_pairs, write_class
from support.report_page import open_report

COPY = PLANTED[0]  # ok_loops and its copy with every variable renamed


def _report(course, out, lang: str):
    """``python -m coursekit.report`` with the course's language set to ``lang``; its stderr."""
    config = course / "nbgrader_config.py"
    config.write_text(config.read_text(encoding="utf-8") + f"\nc.CourseKit.language = {lang!r}\n", encoding="utf-8")
    done = subprocess.run([sys.executable, "-m", "coursekit.report", "--course", str(course), "--out", str(out)],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stderr


@pytest.fixture(scope="module")
def reports(tmp_path_factory):
    """{lang: (report folder, stderr)} of the planted class, reported in each language."""
    course = tmp_path_factory.mktemp("planted-course")
    write_class(course)
    return {lang: (course / f"report-{lang}", _report(course, course / f"report-{lang}", lang)) for lang in ("zh", "en")}


def _scores(folder) -> dict:
    with (folder / "similarity.csv").open(encoding="utf-8") as fh:
        return {frozenset((r["first_student"], r["second_student"])): (r["score"], r["flagged"])
                for r in csv.DictReader(fh)}


def test_are_the_planted_pairs_flagged_and_the_scores_the_same_in_two_runs(reports):
    """similarity.csv beside the other CSV files: the planted pairs flagged, nothing else; the same scores from two
    processes; make report's summary names the count?"""
    (zh, zh_err), (en, en_err) = reports["zh"], reports["en"]
    assert _scores(zh) == _scores(en)
    assert {pair for pair, (_, flagged) in _scores(zh).items() if flagged == "1"} == planted_pairs()
    assert f"相似的提交：{len(planted_pairs())} 对达到 0.42" in zh_err
    assert f"similar submissions: {len(planted_pairs())} pairs reach 0.42" in en_err


def test_are_the_pages_written_as_the_report_writes_its_files(reports):
    """Each pair's page in similarity/ beside index.html, with the permissions of index.html itself?"""
    folder = reports["zh"][0]
    pages = sorted((folder / "similarity").glob("pair-*.html"))
    assert len(pages) == len(planted_pairs())
    mode = stat.S_IMODE((folder / "index.html").stat().st_mode)
    assert {stat.S_IMODE(p.stat().st_mode) for p in [*pages, folder / "similarity.csv"]} == {mode}


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_does_a_row_open_the_pair_side_by_side_in_chromium(reports, lang, tmp_path):
    """The section in the course's language, the caveat before the table, a row per planted pair; a click on the
    renamed copy's row opens its page: both students, both times, the cells side by side, the shared lines marked?"""
    folder, _ = reports[lang]
    text = {key: WORDS.template(lang, f"report.similar.{key}") for key in ("heading", "caveat", "open", "title", "back")}

    def check(page):
        heading = page.locator("h2", has_text=text["heading"])
        assert heading.count() == 1
        assert heading.locator("xpath=following-sibling::p[1]").inner_text() == text["caveat"]
        rows = heading.locator("xpath=following-sibling::table[1]").locator("tbody tr")
        assert rows.count() == len(planted_pairs())
        row = rows.filter(has_text=COPY.students[1])
        assert row.count() == 1 and row.inner_text().split("\t")[1:4:2] == list(COPY.students)
        row.get_by_role("link", name=text["open"]).click()
        page.wait_for_load_state()
        assert page.locator("h1").inner_text() == text["title"].format(first=COPY.students[0], second=COPY.students[1])
        assert page.locator("table").first.inner_text().count("2026-12-03 09:") == 2
        assert page.locator(".side").count() == 3 and page.locator(".side pre").count() == 6
        assert page.locator("mark", has_text="acc += Q[r, t]*K[c, t]").count() == 1
        page.get_by_role("link", name=text["back"]).click()
        page.wait_for_load_state()
        assert page.locator("h2", has_text=text["heading"]).count() == 1

    assert open_report(folder / "index.html", f"similarity_{lang}.png", tmp_path, check) == []
