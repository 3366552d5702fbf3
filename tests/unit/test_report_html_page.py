"""Is index.html one self-contained page that shows every section of the class report?

Chromium opening it: tests/integration/test_report_page_browser.py.
"""
import io
import re

import pytest

from coursekit.language import WORDS
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


def test_the_page_shows_each_section(page_file):
    """Mistakes with reteach, not-graded and missing students, and one line per student, in Chinese?"""
    text = page_file.read_text(encoding="utf-8")
    said = [WORDS.say("zh", msgid) for msgid in ("report.page.sections.mistakes", "report.page.zero",
                                                  "report.page.sections.students", "report.page.flag_status.delegated")]
    said += [WORDS.say("zh", "report.page.missing", n=1), WORDS.say("zh", "report.page.pending", n=1),
             WORDS.say("zh", "report.page.mismatch", s="hank", g="test1_scores", p="4", a="4.5")]
    for phrase in (*said, "mask_replaces_scores", "加在分数上", "JSONDecodeError", "frank", "gina"):
        assert phrase in text, phrase
    assert MIME not in text  # the raw payload is never rendered


def test_a_class_graded_without_results_is_told_so(tmp_path):
    """Does the page say why checks and mistakes are empty when no notebook carries the grader's results?"""
    url = write_class(tmp_path, [Student("old", dict(AUTO), payloads=[])])
    text = render(build_report(tmp_path, read_class(url, ASSIGNMENT), io.StringIO()))
    assert WORDS.say("zh", "report.page.no_results", mime=MIME) in text


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
    assert "<html lang='en'>" in text
    assert f"<h1>{WORDS.say('en', 'report.page.title', assignment='ch04_attention')}</h1>" in text
    said = [WORDS.say("en", msgid) for msgid in ("report.page.sections.mistakes", "report.page.mistakes.what_to_reteach",
                                                  "report.page.status.not_graded")]
    said += [WORDS.say("en", "report.page.missing", n=1),
             WORDS.say("en", "report.page.mismatch", s="hank", g="test1_scores", p="4", a="4.5")]
    for phrase in (*said, "added to the scores, it does not replace them"):
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


def _summary_row(text: str, label: str) -> str:
    found = re.search(rf"<tr><th>{re.escape(label)}</th><td class='num'>([^<]*)</td></tr>", text)
    assert found, label
    return found.group(1)


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_does_the_page_never_say_students_were_diagnosed_beside_no_mistake(tmp_path, lang):
    """A class the grader checked, nobody with a mistake: the summary counts the students checked and, apart, those
    with a mistake (0), and the mistakes section says none was found among that same number; never "8 diagnosed"
    beside "no mistake was diagnosed"?"""
    from support.synthetic_class import make_student

    url = write_class(tmp_path, [make_student(f"s{k}") for k in range(3)])
    text = render(build_report(tmp_path, read_class(url, ASSIGNMENT), io.StringIO(), lang=lang), lang)
    checked, with_mistake = (_summary_row(text, WORDS.say(lang, k))
                            for k in ("report.page.summary.checked", "report.page.summary.with_mistake"))
    assert (checked, with_mistake) == ("3", "0")
    mistakes = re.search(rf"<h2>{re.escape(WORDS.say(lang, 'report.page.sections.mistakes'))}</h2><p>([^<]*)</p>", text).group(1)
    assert re.findall(r"\d+", mistakes) == [checked]  # "none among the 3 checked", the summary's own count


def test_are_the_report_and_its_similarity_section_titled_and_named_as_the_rest(tmp_path):
    """The page's title and heading: the assignment's title from its labels, never its id; the similarity section
    names a written question as every other section does (思考题 1), not by its grade id?"""
    from types import SimpleNamespace

    from coursekit.report.labels import Labels
    from coursekit.report.similarity import CODE_UNIT
    from coursekit.report.similarity_page import section

    report = build_report(tmp_path, read_class(write_class(tmp_path, [Student("s1", dict(AUTO))]), ASSIGNMENT),
                          io.StringIO())
    labels = Labels("zh", {"q_think1_scale": "思考题 1"}, title="第 4 章 · 自注意力")
    match = lambda unit, score: SimpleNamespace(unit=unit, score=score, cells=[])  # noqa: E731
    pair = SimpleNamespace(first="s1", second="s2", score=0.7, flagged=True,
                           matches=[match(CODE_UNIT, 0.6), match("q_think1_scale", 0.8)])
    similarity = SimpleNamespace(problem="", threshold=0.42, limit=3, students=2, flagged=[pair], pairs=[pair],
                                 unreadable=[], work={})
    heading, shown = section(similarity, {}, "zh", labels)
    text = render(report, "zh", [(heading, shown)], labels)
    assert "<title>班级报告：第 4 章 · 自注意力</title>" in text and "<h1>班级报告：第 4 章 · 自注意力</h1>" in text
    assert f"班级报告：{ASSIGNMENT}" not in text
    assert "思考题 1 0.80" in shown and "q_think1_scale" not in shown


def test_does_the_score_figure_fit_the_page_with_titles_that_do_not_overlap():
    """Five panels with the chapter's long titles: at most three a row (the figure no wider than the page's 1200 px),
    each title within its panel's column, no two titles overlapping, every title inside the figure?"""
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    from coursekit.report import figures

    names = ["TEST 1 · 任务 2：实现 student_attention_scores", "TEST 2 · 任务 3：实现 student_apply_mask",
             "TEST 3 · 任务 4：实现 student_softmax", "TEST 4 · 任务 5：把三步接起来（端到端）", "总分"]
    fig = figures.score_distributions([(name, [1.0, 2.0, 4.0], 4.0) for name in names], "zh")
    FigureCanvasAgg(fig).draw()
    renderer = fig.canvas.get_renderer()
    assert fig.get_size_inches()[0] * 96 <= 1200 * 0.8  # SVG points at CSS's 96 px an inch, the page's margins aside
    whole = fig.bbox
    boxes = [ax.title.get_window_extent(renderer) for ax in fig.axes if ax.get_title()]
    assert len(boxes) == 5 and len({round(ax.get_position().y0, 2) for ax in fig.axes if ax.get_title()}) == 2
    for k, box in enumerate(boxes):
        assert whole.x0 <= box.x0 and box.x1 <= whole.x1 and box.y1 <= whole.y1, names[k]
        assert not any(box.overlaps(other) for other in boxes[k + 1:]), names[k]


def test_does_the_page_name_students_by_name_not_id(tmp_path):
    """Students the gradebook names (an LMS's roster: lti-… ids): every row, list and warning of the page names them;
    their ids appear nowhere but where two share a name (then beside it)?"""
    from coursekit.people import People
    from coursekit.report.labels import Labels
    from support.synthetic_class import small_class

    report = build_report(tmp_path, read_class(small_class(tmp_path), ASSIGNMENT), io.StringIO())
    ids = [r.student for r in report.rows]
    named = {s: f"Student {s.title()}" for s in ids} | {"bob": "Li Wei", "carol": "li wei"}
    text = render(report, "zh", labels=Labels("zh", people=People(named)))
    shown = re.sub(r"<svg.*?</svg>|<div class='message'>.*?</div>", "", text, flags=re.S)
    assert [s for s in ids if s not in ("bob", "carol") and re.search(rf"\b{s}\b", shown)] == []
    assert "Student Alice" in shown and "Student Frank" in shown and "Student Gina" in shown  # graded, absent, pending
    assert "Li Wei (bob)" in shown and "li wei (carol)" in shown  # one name, two students: the id beside each
