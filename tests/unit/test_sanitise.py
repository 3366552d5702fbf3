"""Does every page that shows a student's text to an instructor or a TA keep the payload table inert: no element
outside the allow-list, no event handler, no link, no URL, no class, style or id of the student's?

Every row of :data:`support.payloads.PAYLOADS` through every rendering entry point: the marking page's renderer
(and its board), nbgrader's formgrader page (an ``HTMLExporter`` built from the course's ``nbgrader_config.py`` with
the formgrader's own template, as the formgrader builds it), the feedback page (``CourseFeedbackExporter`` with
nbgrader's settings only), the report's similarity pages and its index. Chromium opening the marking page and the
formgrader on all rows: tests/integration/test_marking_page.py.
"""
import functools
import io
import re
import shutil

import pytest
from nbconvert.exporters import HTMLExporter
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook, new_output
from nbgrader.server_extensions.formgrader import handlers as formgrader
from traitlets.config.loader import PyFileConfigLoader

from coursekit import sanitise
from coursekit.marking.board import question_board
from coursekit.marking.course import MarkingCourse
from coursekit.marking.render import render_markdown
from coursekit.paths import COURSE
from coursekit.plugins import safe_html
from coursekit.report.fingerprints import highlighted
from coursekit.report.solutions import TEXT
from support.payloads import ALL, EVIL, PAYLOADS, added, violations
from test_marking_store import _template
from test_plugins_feedback_page import _notebook as feedback_notebook, _page as feedback_page, gradebook  # noqa: F401

ROWS = [pytest.param(row, id=row.name) for row in PAYLOADS]
FIGURE = re.compile(r'<svg xmlns:xlink="http://www.w3.org/1999/xlink".*?</svg>', re.S)
BENIGN = "一个普通的回答：softmax 按行归一化。"
PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="


def _outputs(text: str) -> list:
    """What a student's code can display: ``text`` as HTML, as Markdown and as LaTeX; script; an isolated frame."""
    return [new_output("display_data", data={"text/html": text, "text/plain": "html"}),
            new_output("display_data", data={"text/markdown": text, "text/plain": "markdown"}),
            new_output("display_data", data={"text/latex": text, "text/plain": "latex"}),
            new_output("display_data", data={"application/javascript": "alert('js')", "text/plain": "js"}),
            new_output("display_data", data={"image/svg+xml": text, "text/plain": "svg"}),
            new_output("display_data", data={"text/html": text}, metadata={"text/html": {"isolated": True}}),
            new_output("display_data", data={"image/png": PNG, "text/plain": "png"},
                       metadata={"filenames": {"image/png": f"https://{EVIL}/x.png"}})]


@functools.lru_cache(maxsize=None)
def _formgrader_exporter() -> HTMLExporter:
    config = PyFileConfigLoader("nbgrader_config.py", path=str(COURSE)).load_config()
    config.HTMLExporter.template_name = "formgrade"  # what nbgrader's FormgradeExtension adds to the course's config
    config.HTMLExporter.extra_template_basedirs = [formgrader.template_path]
    return HTMLExporter(config=config)


@functools.lru_cache(maxsize=None)
def _formgrader_page(text: str) -> str:
    answer = new_markdown_cell(text)
    answer.metadata["nbgrader"] = {"grade": True, "solution": True, "grade_id": "q1", "points": 1, "locked": False,
                                   "schema_version": 3}
    code = new_code_cell("show()")
    code.outputs = _outputs(text)
    nb = new_notebook(cells=[new_markdown_cell(text), answer, code])
    for n, cell in enumerate(nb.cells):
        cell.id = f"cell{n}"  # the same page around the answer whatever it holds
    return _formgrader_exporter().from_notebook_node(nb, resources={"base_url": "/", "index": 0, "total": 1})[0]


@pytest.mark.parametrize("row", ROWS)
def test_the_marking_pages_renderer(row):
    assert violations(added(render_markdown(row.text))) == []


@pytest.mark.parametrize("row", ROWS)
def test_the_formgrader(row):
    """The course's config makes the formgrader's plain HTMLExporter sanitise Markdown cells and outputs alike?"""
    assert violations(added(_formgrader_page(row.text), _formgrader_page(BENIGN))) == []


@pytest.mark.parametrize("row", ROWS)
def test_the_feedback_page(row, gradebook):  # noqa: F811
    """The feedback page is sanitised by its exporter, whatever the config (here nbgrader's own settings only)?"""
    def page(text):
        nb = feedback_notebook()
        nb.cells[4].source = text  # q_think1's answer
        nb.cells[2].outputs = _outputs(text)  # TEST 1's outputs
        for n, cell in enumerate(nb.cells):
            cell.id = f"cell{n}"
        return feedback_page(gradebook, nb)

    assert violations(added(page(row.text), page(BENIGN))) == []


@pytest.mark.parametrize("row", ROWS)
def test_the_similarity_pages(row):
    """Two students share the payload: copydetect's marked-up cells pass the allow-list?"""
    for shown in highlighted(row.text, row.text, TEXT, frozenset()):
        assert "<mark>" in shown and violations(added(shown)) == []


def test_the_class_report_quotes_what_a_student_caused_as_text(tmp_path):
    """A reason for 0 that quotes the student (every row at once) is text on the report's index?"""
    from coursekit.grades import read_class
    from coursekit.report.html_page import render
    from coursekit.report.tables import build_report
    from support.synthetic_class import ASSIGNMENT, Student, write_class

    def page(text, folder):  # without matplotlib's figures, whose clip-path ids are new in every drawing
        url = write_class(folder, [Student("dave", {}, None, zero_reason=text)])
        return FIGURE.sub("", render(build_report(folder, read_class(url, ASSIGNMENT), io.StringIO())))

    assert violations(added(page(ALL, tmp_path / "payloads"), page(BENIGN, tmp_path / "benign"))) == []


def test_the_marking_board_shows_a_students_answer_through_the_renderer(tmp_path_factory, tmp_path):
    """The board's answer HTML (what the page puts in with innerHTML) is the sanitised rendering, every row at once?"""
    template = _template(tmp_path_factory.getbasetemp() / "written-12")
    course = tmp_path / "course"
    shutil.copytree(template.course, course)
    student, question = template.students[0], "q_think1_scale"
    path = course / "autograded" / student / "ch04_attention" / "ch04_attention.ipynb"
    path.write_text(path.read_text(encoding="utf-8").replace(
        _json_string(template.answers[question][student]), _json_string(ALL)), encoding="utf-8")
    board = question_board(MarkingCourse(course), "ch04_attention", question)
    shown = next(v["html"] for g in board["groups"] for v in g["variants"] if student in v["students"])
    assert shown == render_markdown(ALL) and violations(added(shown)) == []


def _json_string(text: str) -> str:
    import json

    return json.dumps(text, ensure_ascii=False)[1:-1]


def test_what_the_pages_keep_of_a_students_text():
    """Formulas as MathML, emphasis, lists, tables, code and an embedded image survive; a link keeps its words?"""
    text = (f"**粗体** $\\frac{{1}}{{\\sqrt{{d}}}}$\n\n- 一\n- 二\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n```python\nx = 1\n```"
            f"\n\n[参考资料](https://{EVIL}/doc) <img src=\"data:image/png;base64,{PNG}\" alt=\"图\">")
    for html in (render_markdown(text), _formgrader_page(text)):
        for kept in ("<strong>粗体</strong>", "<msqrt>", "<li>二</li>", "<td>2</td>", "x = 1", "参考资料"):
            assert kept in html.replace('<span class="n">x</span> <span class="o">=</span> <span class="mi">1</span>',
                                        "x = 1"), kept
        assert f'src="data:image/png;base64,{PNG}"' in html
    assert f"参考资料 (https://{EVIL}/doc)" in render_markdown(text)  # the marking page names the target, as text


def test_is_a_formula_that_cannot_be_converted_shown_as_its_source():
    assert sanitise.formula("\\frac{a}{") == "<code>\\frac{a}{</code>"


def test_do_the_nbconvert_pages_keep_mathjax_off_a_students_html():
    """MathJax typesets after the sanitiser: a student's HTML is inside an element MathJax skips?"""
    page = _formgrader_page("$\\href{https://evil.example}{x}$")
    assert '<div class="tex2jax_ignore"><p><math' in page
    assert safe_html.clean_html(b"<p>$x$</p>") == '<div class="tex2jax_ignore"><p>$x$</p></div>'
