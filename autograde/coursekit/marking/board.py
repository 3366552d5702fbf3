"""One question's marking board: every answer, grouped, with its saved judgement and a hint.

:func:`question_board` joins what the other modules provide — answers (:mod:`.answers`), saved
scores and comments (:mod:`.store`), groups (:mod:`.grouping`), the rubric and its hints
(:mod:`.rubric`, :mod:`.comment`) — into the JSON the page draws. Shape::

    {"assignment", "language", "question": {grade_id, name, kind, title, max_score, prompt_html, reference_html},
     "questions": [{grade_id, name, short, kind, title, max_score}],
     "rubric": {points: [{text, share, terms}], unit} | null,
     "warnings": [str], "progress": {grade_id: [marked, submissions]},
     "groups": [{"id", "kind", "variants": [{"html", "students": [student], "hint"}],
                 "suggestion": {"ticks", "score", "source", "confidence", "reason"} | null,
                 "neighbours": [{"group", "score", "ticks", "similarity", "students"}], "shared": [passage],
                 "hint": {"ticks", "contradicted", "hits": [{"point", "phrase", "negation"}]} | null,
                 "ask": n | null}],
     "students": {student: {"score", "comment", "token", "ticks", "remark", "unanswered", "auto_score", "automatic"}},
     "names": {student: what the page calls them (coursekit.people)},
     "assignments": [{"id", "title", "marked", "total"}],
     "texts": {student: fingerprint of the answer's text shown}, "hard_coded": {student: one line}}

``hard_coded`` says, for each student who has any, which of their test cells may be hard-coded to the visible
checks (:func:`coursekit.record.may_be_hard_coded`, as the class report says): a reason to look at their code too.

A question is any manually graded cell (:data:`.answers.KINDS`: a written answer, manually graded code,
a task); code is shown as a code block. What is suggested, and when Enter may save it, is
:mod:`.suggestions`'s: a suggestion comes from the TA's own marks (or a blank answer), a hint from the rubric's
phrases; ``ask`` is the order in which the page asks for the unmarked groups (the one that teaches most first).
Nothing reaches the gradebook until the marker presses a key.
"""
import re
from dataclasses import replace

from ..grades import is_blank
from ..language import WORDS, Refusal, marked
from .answers import code_block, text_fingerprint
from .comment import parse
from .grouping import group_answers, split_by_judgement
from .render import render_markdown
from .neighbours import shared_passages
from .rubric import hint
from .splits import read_splits
from .suggestions import Mark, suggest_question
from .store import marked_counts, question_states

__all__ = ["question_board", "short_name", "student_view"]

# why Enter may save a suggestion, by its source (coursekit.marking.suggestions), by message id
REASONS = {"unanswered": marked("marking.reason.unanswered"), "same": marked("marking.reason.same"),
           "neighbours": marked("marking.reason.neighbours")}
SHOWN_NEIGHBOURS = 3


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


def _suggestion(found, max_score: float, lang: str) -> dict | None:
    """What the page shows of a :class:`.suggestions.Suggestion` that Enter may save (None: there is none)."""
    if not found.source:
        return None
    reason = WORDS.say(lang, REASONS[found.source], confidence=found.confidence)
    return {"ticks": None if found.ticks is None else list(found.ticks), "score": found.score, "source": found.source,
            "confidence": found.confidence, "reason": reason, "enter": found.enter}


def _advice(groups: list, answers: dict, views: dict, rubric, question, space_of, lang: str) -> dict:
    """{group id: the group's suggestion, nearest marked groups, shared passages, hint and place in the asking}.

    A group of near-identical answers is suggested a mark only when each of its variants would be suggested that
    very mark: one of them may add what the others lack (a wrong conclusion)."""
    texts, variants_of = {}, {}
    for group in groups:
        variants_of[_gid(group)] = [f"{_gid(group)}#{n}" for n in range(1, len(group.keys))]
        texts[_gid(group)] = answers[group.students[0]]
        texts.update(zip(variants_of[_gid(group)], (answers[group.members[k][0]] for k in group.keys[1:])))
    marks = {}
    for group in groups:
        first = views[group.students[0]]
        if first["score"] is not None:
            ticks = tuple(first["ticks"]) if first["ticks"] is not None and rubric is not None else None
            marks[_gid(group)] = Mark(ticks, first["score"])
            marks.update((key, marks[_gid(group)]) for key in variants_of[_gid(group)])
    blank = [_gid(g) for g in groups if g.kind == "unanswered"]
    sizes = {_gid(g): g.size for g in groups}
    found, order = suggest_question(texts, marks, rubric, question.max_score, blank, sizes, space=space_of(texts))
    ask = {key: n for n, key in enumerate(k for k in order if k in sizes)}
    advice = {}
    for key in sizes:
        own = found.get(key)
        if own is not None and own.source and any((found[v].ticks, found[v].score, found[v].enter) !=
                                                  (own.ticks, own.score, own.enter) for v in variants_of[key]):
            own = replace(own, source="", enter=False)
        near = own.neighbours if own is not None else []
        advice[key] = {
            "suggestion": _suggestion(own, question.max_score, lang) if own is not None else None,
            "neighbours": [{"group": n.key.split("#")[0], "score": marks[n.key].score, "similarity": n.similarity,
                            "ticks": None if marks[n.key].ticks is None else list(marks[n.key].ticks),
                            "students": sizes[n.key.split("#")[0]]} for n in near[:SHOWN_NEIGHBOURS]],
            "shared": list(shared_passages(texts[key], texts[near[0].key])) if near else [],
            "hint": own.hint.to_dict() if own is not None and own.hint is not None else None,
            "ask": ask.get(key)}
    return advice


def _gid(group) -> str:
    return f"{group.kind}:{group.students[0]}"


def _warnings(rubrics, question, lang: str) -> list:
    if rubrics.missing_file:
        return [WORDS.say(lang, "marking.no_rubric_file", path=rubrics.path)]
    if question.grade_id not in rubrics.by_question:
        return [WORDS.say(lang, "marking.no_rubric_points", path=rubrics.path, question=question.grade_id)]
    return []


def _html(question, text: str, lang: str) -> str:
    """An answer (or a reference) of ``question`` as the page shows it."""
    return render_markdown(code_block(text) if question.kind == "code" else text, lang)


def _stub(course, assignment: str, question) -> str:
    """What the release left in the answer's place (a written answer: the assignment's text stub when unknown)."""
    return question.stub or (course.stubs(assignment)["markdown"] if question.kind == "markdown" else "")


def _hard_coded(flags: dict, names: dict, lang: str) -> dict:
    """{student: the page's line} from ``flags`` ({student: HardCoded cells}), the cells by their short ``names``."""
    separator = WORDS.say(lang, "locale.list_separator")
    joined = {student: separator.join(short_name(names.get(f.grade_id, f.grade_id)) for f in cells)
              for student, cells in flags.items()}
    return {student: WORDS.say(lang, "marking.hard_coded", cells=cells) for student, cells in joined.items()}


class UnknownQuestion(Refusal):
    """A question the marking page was asked for that the assignment does not have (the API's 404)."""


def unknown_question(assignment: str, grade_id: str, questions) -> UnknownQuestion:
    """The refusal of ``grade_id``, naming the assignment's manually graded ``questions`` (or that it has none)."""
    if not questions:
        return UnknownQuestion(marked("marking.no_questions"), assignment=assignment)
    return UnknownQuestion(marked("marking.no_question"), assignment=assignment, question=grade_id,
                           questions=", ".join(q.grade_id for q in questions))


def question_board(course, assignment: str, grade_id: str, lang: str | None = None) -> dict:
    """The board of ``grade_id`` (see the module docstring) in ``lang`` (the page's; default: the course's language);
    an unknown question is refused (:class:`UnknownQuestion`)."""
    lang = lang or course.language
    questions = course.questions(assignment)
    question = next((q for q in questions if q.grade_id == grade_id), None)
    if question is None:
        raise unknown_question(assignment, grade_id, questions)
    rubrics = course.rubrics(assignment, questions)
    rubric = rubrics.by_question.get(grade_id)
    states = question_states(course.engine, assignment, question.notebook, grade_id)
    texts = course.answers(assignment, question, states)
    views = {s: student_view(state, rubric) for s, state in states.items()}
    missing = WORDS.say(lang, "marking.missing_notebook")
    answers = {s: (missing if t is None else t) for s, t in texts.items()}
    shown = {s: (render_markdown(t, lang) if texts[s] is None else _html(question, t, lang)) for s, t in answers.items()}
    groups = group_answers(answers, _stub(course, assignment, question),
                           read_splits(course.folder, assignment).get(grade_id, ()))
    groups = split_by_judgement(groups, lambda s: (views[s]["token"], views[s]["automatic"]))
    advice = _advice(groups, answers, views, rubric, question,
                     lambda texts: course.space(assignment, grade_id, texts), lang)
    board_groups = []
    for group in groups:
        board_groups.append({
            "id": _gid(group), "kind": group.kind,
            "variants": [{"html": shown[group.members[k][0]], "students": group.members[k],
                          "hint": hint(rubric, answers[group.members[k][0]]).to_dict() if rubric else None}
                         for k in group.keys],
            **advice[_gid(group)]})
    counts, people = marked_counts(course.engine, assignment), course.people()
    names = course.names(assignment, lang)  # the cells' names in the page's language: it shows them, not ids
    return {"assignment": assignment, "language": lang,
            "question": {"grade_id": grade_id, "name": names.get(grade_id, grade_id), "kind": question.kind,
                         "title": question.title, "max_score": question.max_score,
                         "prompt_html": render_markdown(question.body, lang),
                         "reference_html": _html(question, question.reference, lang) if question.reference else ""},
            "questions": [{"grade_id": q.grade_id, "name": names.get(q.grade_id, q.grade_id),
                           "short": short_name(names.get(q.grade_id, q.grade_id)), "kind": q.kind, "title": q.title,
                           "max_score": q.max_score}
                          for q in questions],
            "rubric": rubric.to_dict() if rubric else None, "warnings": _warnings(rubrics, question, lang),
            "progress": {q.grade_id: list(counts.get(q.grade_id, (0, 0))) for q in questions},
            "assignments": assignment_counts(course, lang), "groups": board_groups, "students": views,
            "names": {s: people.called(s) for s in views},
            "texts": {s: text_fingerprint(t) for s, t in texts.items()},
            "hard_coded": _hard_coded(course.hard_coded(assignment, question.notebook, views), names, lang)}


def assignment_counts(course, lang: str | None = None) -> list:
    """Every assignment with written answers, for the page's switcher: ``{"id", "title", "marked", "total"}`` (answers;
    the title is what the page shows)."""
    found = []
    for name in course.assignments():
        manual = {q.grade_id for q in course.questions(name)}
        counts = [c for grade_id, c in marked_counts(course.engine, name).items() if grade_id in manual]
        found.append({"id": name, "title": course.title(name, lang), "marked": sum(m for m, _ in counts),
                      "total": sum(t for _, t in counts)})
    return found
