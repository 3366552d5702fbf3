"""Is the rubric file read as documented, and does a mistake in it name the file and the entry?"""
import pytest

from coursekit.marking.rubric import RubricError, load_rubrics, rubric_file, score_of, suggest
from coursekit.paths import ASSIGNMENT, COURSE, MASTER

QUESTIONS = ["q_a", "q_b"]


def _write(tmp_path, text):
    path = rubric_file(tmp_path, ASSIGNMENT)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def test_does_the_course_rubric_cover_every_written_question_with_shares_adding_up_to_one():
    import json
    cells = json.loads(MASTER.read_text(encoding="utf-8"))["cells"]
    written = [c["metadata"]["nbgrader"]["grade_id"] for c in cells
               if c["cell_type"] == "markdown" and c["metadata"].get("nbgrader", {}).get("solution")]
    rubrics = load_rubrics(COURSE, ASSIGNMENT, written)
    assert sorted(rubrics.by_question) == sorted(written) and len(written) == 8
    for rubric in rubrics.by_question.values():
        assert score_of(rubric, [True] * len(rubric.points), 1.0) == 1.0
        assert all(p.terms for p in rubric.points)


def _prompts_and_answers() -> dict:
    """{grade_id: (the question as the student reads it, the master's reference answer)}, from the master.

    The question is everything from the last ``###`` heading above the answer cell down to it (the
    prompt, and any demo cell the question asks to run).
    """
    import json
    cells, found, above = json.loads(MASTER.read_text(encoding="utf-8"))["cells"], {}, []
    for cell in cells:
        source, meta = "".join(cell["source"]), cell["metadata"].get("nbgrader", {})
        if cell["cell_type"] == "markdown" and meta.get("solution"):
            found[meta["grade_id"]], above = ("\n".join(above), source), []
        elif "### " in source:
            above = [source[source.rindex("### "):]]
        else:
            above.append(source)
    return found


def test_does_each_reference_answer_get_every_rubric_point_suggested():
    """The master's reference answer hits a key term of every point: the rubric asks for what it says?"""
    rubrics = load_rubrics(COURSE, ASSIGNMENT).by_question
    for question, (_, answer) in _prompts_and_answers().items():
        assert suggest(rubrics[question], answer) == [True] * len(rubrics[question].points), question


def test_does_no_key_term_come_from_the_question_itself():
    """A term the prompt contains would be suggested for any answer that restates the question: none is?"""
    rubrics = load_rubrics(COURSE, ASSIGNMENT).by_question
    written = _prompts_and_answers()
    assert len(written) == 8
    for question, (prompt, _) in written.items():
        hits = [t for p in rubrics[question].points for t in p.terms if t.lower() in prompt.lower()]
        assert hits == [], (question, hits)
    # control: the terms the old rubric had ("NaN" for the -inf question) are caught
    assert "nan" in written["q_lab2_neg_inf"][0].lower() and "倍" in written["q_lab3_matmul_speed"][0]


def test_is_a_missing_file_no_rubric_rather_than_an_error(tmp_path):
    rubrics = load_rubrics(tmp_path, ASSIGNMENT, QUESTIONS)
    assert rubrics.missing_file and rubrics.by_question == {}


def test_does_a_score_add_the_ticked_shares(tmp_path):
    _write(tmp_path, '[[q_a.points]]\ntext = "一"\nshare = 0.5\nterms = ["方差"]\n'
                     '[[q_a.points]]\ntext = "二"\nshare = 0.3\n[[q_a.points]]\ntext = "三"\nshare = 0.2\n')
    rubric = load_rubrics(tmp_path, ASSIGNMENT, QUESTIONS).by_question["q_a"]
    assert score_of(rubric, [True, True, False], 1.0) == 0.8
    assert score_of(rubric, [False, True, True], 2.0) == 1.0
    assert suggest(rubric, "方差变大了") == [True, False, False]
    with pytest.raises(ValueError, match="2 ticks for 3 rubric points"):
        score_of(rubric, [True, False], 1.0)


@pytest.mark.parametrize("text, message", [
    ('[[q_a.points]]\ntext = "一"\n', r"\[\[q_a.points\]\] #1 needs share = a number in \(0, 1\]"),
    ('[[q_a.points]]\nshare = 1.0\n', r"#1 needs text ="),
    ('[[q_a.points]]\ntext = "一"\nshare = 0.5\n', r"the shares of \[q_a\] add up to 0.5, expected 1"),
    ('[[q_typo.points]]\ntext = "一"\nshare = 1.0\n', r"q_typo is not a written answer of ch04_attention \(expected one of q_a, q_b\)"),
    ('[[q_a.points]]\ntext = "一"\nshare = 1.0\nterms = "方差"\n', r"terms must be a list of non-empty strings"),
    ('[q_a\n', r"is not valid TOML"),
])
def test_does_a_broken_rubric_name_the_file_and_what_was_expected(tmp_path, text, message):
    path = _write(tmp_path, text)
    with pytest.raises(RubricError, match=message) as error:
        load_rubrics(tmp_path, ASSIGNMENT, QUESTIONS)
    assert str(path) in str(error.value)
