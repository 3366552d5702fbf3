"""A TA marking one question of a class on the marking page, simulated: what the page asks first is marked, by hand,
with the true mark, until the page's suggestions (Enter) agree with the truth on ``goal`` of the answers left.

Used by benchmarks/bench_marking.py (the figures) and tests/unit/test_marking_table.py (the table's offers once a
class is marked). The page's own logic decides everything: the groups of identical answers
(:func:`coursekit.marking.normalise.normalise`), the suggestions and the order to mark in
(:func:`coursekit.marking.suggestions.suggest_question`); only the TA's hand is simulated.
"""
from dataclasses import dataclass, field

from coursekit.marking.neighbours import Space
from coursekit.marking.normalise import normalise
from coursekit.marking.rubric import score_of
from coursekit.marking.suggestions import ENTER_CONFIDENCE, Mark, suggest_question


@dataclass
class Marking:
    answers: int                     # in the class
    groups: int                      # of identical answers: what marking everything by hand takes
    judgements: int = 0              # groups the TA marked by hand
    by_hand: int = 0                 # answers in them
    agreement: float = 0.0           # of the answers left, the share whose suggestion is their true mark
    reached: bool = False
    entered: list = field(default_factory=list)  # (confidence, right?) of each suggestion Enter could save, each step
    marks: dict = field(default_factory=dict)    # {group key: Mark} at the end
    texts: dict = field(default_factory=dict)    # {group key: text}


def groups_of(made) -> tuple:
    """({key: text}, {key: [students]}): the class's answers grouped as the page groups identical ones."""
    members = {}
    for student in sorted(made.texts):
        members.setdefault(normalise(made.texts[student]) or "(blank)", []).append(student)
    keys = {students[0]: students for students in members.values()}
    return {key: made.texts[key] for key in keys}, keys


def _truth_of(made, students, rubric) -> Mark:
    ticks = made.truth[students[0]]
    return Mark(ticks, score_of(rubric, ticks, 1.0))


def simulate(made, rubric, goal: float = 0.95, space_of=Space, max_steps: int | None = None,
             enter_confidence: float = ENTER_CONFIDENCE, asked: bool = True) -> Marking:
    """Mark ``made`` (:class:`support.reviewer_answers.ClassOfAnswers`) as the page asks until ``goal`` (module
    docstring); ``space_of`` builds the similarity measure (the page's, or another to compare), ``enter_confidence``
    is where Enter starts saving suggestions; ``asked=False``: the TA marks down the list (largest group first)
    instead of what the page asks first."""
    texts, members = groups_of(made)
    blank = [k for k in texts if made.blank & set(members[k])]
    sizes = {k: len(v) for k, v in members.items()}
    space = space_of(texts)
    result = Marking(len(made.texts), len(texts), texts=texts)
    while True:
        suggestions, order = suggest_question(texts, result.marks, rubric, 1.0, blank, sizes, space=space,
                                              enter_confidence=enter_confidence)
        if not asked:
            order = sorted(order, key=lambda k: (-sizes[k], k))
        left = [k for k in texts if k not in result.marks]
        right = sum(sizes[k] for k in left if suggestions[k].source and
                    tuple(suggestions[k].ticks) == made.truth[members[k][0]])
        for k in left:
            if suggestions[k].enter and k not in blank:
                result.entered.append((suggestions[k].confidence, tuple(suggestions[k].ticks) ==
                                       made.truth[members[k][0]]))
        total = sum(sizes[k] for k in left)
        result.agreement = right / total if total else 1.0
        if result.agreement >= goal or not order or (max_steps is not None and result.judgements >= max_steps):
            result.reached = result.agreement >= goal
            return result
        key = order[0]
        result.marks[key] = _truth_of(made, members[key], rubric)
        result.judgements += 1
        result.by_hand += sizes[key]
