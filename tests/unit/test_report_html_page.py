"""Is index.html one self-contained page that shows every section of the class report?

Chromium opening it: tests/integration/test_report_page_browser.py.
"""
import io
import re

import pytest

from coursekit.record import MIME
from coursekit.grades import read_class
from coursekit.report.html_page import render
from coursekit.report.tables import build_report
from support.synthetic_class import ASSIGNMENT, AUTO, Student, small_class_page, write_class


@pytest.fixture(scope="module")
def page_file(tmp_path_factory):
    return small_class_page(tmp_path_factory.mktemp("class"))


def test_the_page_is_self_contained(page_file):
    """No script, no external file or URL: figures are inline SVG, so the page opens from disk anywhere?"""
    text = page_file.read_text(encoding="utf-8")
    assert "<script" not in text
    assert not re.search(r"""(src|href)=["'](?!data:|#)""", text)
    assert text.count("<svg") == 3  # mistakes, score distributions, check pass rates


def test_is_every_chart_an_image_with_a_name(page_file):
    """Each chart read by a screen reader as an image named by its sentence, the distributions' numbers a table?"""
    text = page_file.read_text(encoding="utf-8")
    names = re.findall(r'<svg role="img" aria-label="([^"]+)"', text)
    assert len(names) == 3 and all(len(name) > 20 for name in names)
    assert "分数分布的数值" in text


def test_the_page_shows_each_section(page_file):
    """Mistakes with reteach, not-graded and missing students, and one line per student, in Chinese?"""
    text = page_file.read_text(encoding="utf-8")
    for phrase in ("最常见的错误", "mask_replaces_scores", "加在分数上", "未能自动评分", "JSONDecodeError",
                   "未提交（1）", "frank", "已收取、尚未 autograde（1）", "gina", "每个学生一行",
                   "调用了参考实现", "hank test1_scores: 结果 4 ≠ 成绩册 4.5"):
        assert phrase in text, phrase
    assert MIME not in text  # the raw payload is never rendered


def test_a_class_graded_without_results_is_told_so(tmp_path):
    """Does the page say why checks and mistakes are empty when no notebook carries the grader's results?"""
    url = write_class(tmp_path, [Student("old", dict(AUTO), payloads=[])])
    text = render(build_report(tmp_path, read_class(url, ASSIGNMENT), io.StringIO()))
    assert "没有评分器的结构化结果" in text and "重新 autograde" in text


def test_the_page_speaks_english_when_the_course_does(tmp_path):
    """c.CourseKit.language = "en": every heading, column, status and note in English, the same sections and numbers;
    only what students' records say (the grader's words in their edition) is quoted as it is?"""
    from attnkit.edition import CJK
    from attnkit.reteach import reteach
    from support.synthetic_class import small_class

    report = build_report(tmp_path, read_class(small_class(tmp_path), ASSIGNMENT), io.StringIO(),
                          lambda bug: reteach(bug, "en"), lang="en")
    text = render(report, "en")
    ours = re.sub(r"<div class='message'>.*?</div>|<td>[^<]*</td>", "", text, flags=re.S)  # quoted, not ours
    assert not CJK.findall(re.sub(r"<svg.*?</svg>", "", ours, flags=re.S)), CJK.findall(ours)
    assert "<html lang='en'>" in text and "<h1>Class report: ch04_attention</h1>" in text
    for phrase in ("The most common mistakes", "what to reteach", "No submission (1)", "not graded automatically",
                   "hank test1_scores: record 4 ≠ gradebook 4.5", "added to the scores, it does not replace them"):
        assert phrase in text, phrase
    assert text.count("<svg") == render(report).count("<svg") == 3


def test_does_a_person_read_names_where_the_ids_were(tmp_path):
    """With the assignment's labels (its headings, its plug-in's mistake names, its grader's check descriptions): no
    cell, mistake or check id anywhere a person reads, in the page's words or its figures; the names instead?"""
    from coursekit.report.labels import Labels
    from support.synthetic_class import small_class

    report = build_report(tmp_path, read_class(small_class(tmp_path), ASSIGNMENT), io.StringIO())
    cells = {c.name: f"第 {n} 个单元格" for n, c in enumerate(report.grades.cells)}
    labels = Labels("zh", cells, lambda bug: f"错误「{len(bug)}」", lambda check: f"检查「{check[::-1]}」")
    text = re.sub(r"<div class='message'>.*?</div>", "", render(report, "zh", labels=labels), flags=re.S)  # records'
    ids = [*cells, *(m.bug for m in report.mistakes), *(c.id for c in report.checks)]
    assert [i for i in ids if i in text] == []
    assert "第 0 个单元格" in text and "错误「" in text and "检查「" in text
