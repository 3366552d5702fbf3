"""One question's marking board: every answer, grouped, with its saved judgement and a hint.

:func:`question_board` joins what the other modules provide — answers (:mod:`.answers`), saved
scores and comments (:mod:`.store`), groups (:mod:`.grouping`), the rubric and its hints
(:mod:`.rubric`, :mod:`.comment`) — into the JSON the page draws. Shape::

    {"assignment", "language", "question": {grade_id, name, kind, title, max_score, prompt_html, reference_html},
     "questions": [{grade_id, name, short, kind, title, max_score}],
     "rubric": {points: [{text, share, terms}], unit} | null,
     "warnings": [str], "progress": {grade_id: [marked, submissions]},
     "groups": [{"id", "kind", "variants": [{"html", "students": [student], "suggestion"}],
                 "suggestion": {"ticks", "score", "reason"} | null}],
     "students": {student: {"score", "comment", "token", "ticks", "remark", "unanswered", "auto_score"}},
     "names": {student: what the page calls them (coursekit.people)},
     "assignments": [{"id", "title", "marked", "total"}]}

A question is any manually graded cell (:data:`.answers.KINDS`: a written answer, manually graded code,
a task); code is shown as a code block. A suggestion is a hint only: nothing reaches the gradebook until
the marker confirms it.
"""
import re

from ..grades import is_blank
from .answers import code_block
from .comment import parse
from .grouping import group_answers, split_by_judgement
from .render import render_markdown
from .rubric import score_of, suggest
from .splits import read_splits
from .store import marked_counts, question_states

__all__ = ["MISSING_TEXT", "question_board", "short_name", "student_view"]

MISSING_TEXT = "（找不到这名学生的笔记本：autograded/ 和 submitted/ 里都没有。）"
UNANSWERED_REASON = "未作答：与发布时的占位文字相同（或为空）"


def short_name(name: str) -> str:
    """A question's name for its tab: up to its colon (``实验题 1``, ``Lab question 1``)."""
    return re.split(r"：|: ", name, maxsplit=1)[0]


def student_view(state, rubric) -> dict:
    """What the page needs of one saved answer state (:class:`.store.AnswerState`). An answer left as released, which
    nbgrader scored 0 by itself, shows as judged (0, not answered: ``automatic``), as the feedback and the report show
    it: nothing left to mark (a marker may still mark it otherwise)."""
    texts = [p.text for p in rubric.points] if rubric else []
    judgement = parse(state.comment, texts)
    automatic = state.score is None and is_blank(state.score, state.auto_score)
    return {"score": 0.0 if automatic else state.score, "comment": state.comment, "token": state.token,
            "auto_score": state.auto_score, "ticks": list(judgement.ticks) if judgement.ticks is not None else None,
            "remark": judgement.remark, "unanswered": judgement.unanswered or automatic, "automatic": automatic}


def _suggestion(group, text, rubric, max_score, judged_keys, judged: bool) -> dict | None:
    if group.kind == "unanswered":
        return {"ticks": [False] * len(rubric.points) if rubric else None, "score": 0.0, "reason": UNANSWERED_REASON}
    earlier = judged_keys.get(group.keys[0]) if not judged else None
    if earlier is not None:
        return {**earlier, "reason": "与已批改的相同回答一致"}
    if rubric is None:
        return None
    ticks = suggest(rubric, text)
    if not any(ticks):  # nothing of the rubric found: no suggestion at all, never a 0 that Enter would save
        return None
    return {"ticks": ticks, "score": score_of(rubric, ticks, max_score), "reason": "按要点关键词推测"}


def _warnings(rubrics, question) -> list:
    if rubrics.missing_file:
        return [f"没有评分要点文件 {rubrics.path}：本页只能直接打分（f 满分、h 一半、0 零分）；要点文件怎么写，按 ? 看本页的帮助"]
    if question.grade_id not in rubrics.by_question:
        return [f"{rubrics.path} 里没有 [{question.grade_id}] 的评分要点：本题只能直接打分（f、h、0）"]
    return []


def _html(question, text: str) -> str:
    """An answer (or a reference) of ``question`` as the page shows it."""
    return render_markdown(code_block(text) if question.kind == "code" else text)


def _stub(course, assignment: str, question) -> str:
    """What the release left in the answer's place (a written answer: the assignment's text stub when unknown)."""
    return question.stub or (course.stubs(assignment)["markdown"] if question.kind == "markdown" else "")


def question_board(course, assignment: str, grade_id: str) -> dict:
    """The board of ``grade_id`` (see the module docstring); KeyError names an unknown question."""
    questions = course.questions(assignment)
    question = next((q for q in questions if q.grade_id == grade_id), None)
    if question is None:
        raise KeyError(f"{assignment} has no manually graded question {grade_id!r} "
                       f"(its questions: {', '.join(q.grade_id for q in questions) or 'none'})")
    rubrics = course.rubrics(assignment, questions)
    rubric = rubrics.by_question.get(grade_id)
    states = question_states(course.engine, assignment, question.notebook, grade_id)
    texts = course.answers(assignment, question, states)
    views = {s: student_view(state, rubric) for s, state in states.items()}
    answers = {s: (MISSING_TEXT if t is None else t) for s, t in texts.items()}
    shown = {s: (render_markdown(t) if texts[s] is None else _html(question, t)) for s, t in answers.items()}
    groups = group_answers(answers, _stub(course, assignment, question),
                           read_splits(course.folder, assignment).get(grade_id, ()))
    groups = split_by_judgement(groups, lambda s: (views[s]["token"], views[s]["automatic"]))
    judged_keys = {}
    for group in groups:
        first = views[group.students[0]]
        if first["score"] is not None and len(group.keys) == 1:
            judged_keys.setdefault(group.keys[0], {"ticks": first["ticks"], "score": first["score"]})
    board_groups = []
    for group in groups:
        leader_text = answers[group.members[group.keys[0]][0]]
        board_groups.append({
            "id": f"{group.kind}:{group.students[0]}", "kind": group.kind,
            "variants": [{"html": shown[group.members[k][0]], "students": group.members[k],
                          "suggestion": _suggestion(group, answers[group.members[k][0]], rubric, question.max_score,
                                                    {}, True)}
                         for k in group.keys],
            "suggestion": _suggestion(group, leader_text, rubric, question.max_score, judged_keys,
                                      views[group.students[0]]["score"] is not None)})
    counts, people = marked_counts(course.engine, assignment), course.people()
    names = course.names(assignment)  # the cells' names in the course's language: the page shows them, not ids
    return {"assignment": assignment, "language": course.language,
            "question": {"grade_id": grade_id, "name": names.get(grade_id, grade_id), "kind": question.kind,
                         "title": question.title, "max_score": question.max_score,
                         "prompt_html": render_markdown(question.body),
                         "reference_html": _html(question, question.reference) if question.reference else ""},
            "questions": [{"grade_id": q.grade_id, "name": names.get(q.grade_id, q.grade_id),
                           "short": short_name(names.get(q.grade_id, q.grade_id)), "kind": q.kind, "title": q.title,
                           "max_score": q.max_score}
                          for q in questions],
            "rubric": rubric.to_dict() if rubric else None, "warnings": _warnings(rubrics, question),
            "progress": {q.grade_id: list(counts.get(q.grade_id, (0, 0))) for q in questions},
            "assignments": assignment_counts(course), "groups": board_groups, "students": views,
            "names": {s: people.called(s) for s in views}}


def assignment_counts(course) -> list:
    """Every assignment with written answers, for the page's switcher: ``{"id", "title", "marked", "total"}`` (answers;
    the title is what the page shows)."""
    found = []
    for name in course.assignments():
        manual = {q.grade_id for q in course.questions(name)}
        counts = [c for grade_id, c in marked_counts(course.engine, name).items() if grade_id in manual]
        found.append({"id": name, "title": course.title(name), "marked": sum(m for m, _ in counts),
                      "total": sum(t for _, t in counts)})
    return found
