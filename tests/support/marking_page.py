"""Driving the marking page (``/marking/``) in Chromium as an instructor would: keys only, every press counted.

:func:`open_marking` opens the page on a :class:`~.lab_server.LabServer`; :func:`mark_all`
marks every question the way a careful instructor does, knowing what each answer really covers
(``truth`` from :mod:`.written_answers`): a group whose members deserve different marks is split
first; a suggestion that is right is confirmed with Enter (the page offers one only from the marks already
made: coursekit.marking.suggestions); otherwise the rubric points are ticked with the digit keys and Enter moves
on to the group the page asks for next. The page's probe
(``window.__marking``) tells which group has the focus; nothing is clicked.
"""
from collections import Counter
from dataclasses import dataclass, field


@dataclass
class Presses:
    keys: int = 0                                   # every key pressed
    judgements: int = 0                             # groups given their mark (one decision each)
    splits: int = 0
    entered: int = 0                                # judgements that were a suggestion confirmed with Enter
    by_question: dict = field(default_factory=dict)  # {grade_id: keys}

    def press(self, page, key: str, question: str) -> None:
        page.keyboard.press(key)
        self.keys += 1
        self.by_question[question] = self.by_question.get(question, 0) + 1


def open_marking(page, server, query: str = "") -> None:
    page.goto(f"{server.url}marking/?token={server.token}{'&' + query if query else ''}")
    page.wait_for_function("() => window.__marking && window.__marking.ready", timeout=30_000)


def settle(page, timeout_ms: int = 60_000) -> None:
    """Wait until every judgement the page queued has been answered by the server."""
    page.wait_for_function("() => window.__marking.pending === 0", timeout=timeout_ms, polling=20)


def current(page) -> dict:
    return page.evaluate("() => window.__marking.current()")


def _split_odd_ones(page, group: dict, truth: dict, presses: Presses, question: str) -> dict:
    """Split out, one by one, the members whose true marks differ from the group's majority; the group left."""
    while True:
        marks = Counter(truth[s] for s in group["students"])
        if len(marks) == 1:
            return group
        majority = marks.most_common(1)[0][0]
        odd = next(i for i, s in enumerate(group["students"]) if truth[s] != majority)
        presses.press(page, "s", question)
        for _ in range(odd):
            presses.press(page, "j", question)
        presses.press(page, "Enter", question)
        presses.splits += 1
        group = current(page)


def _judge(page, group: dict, wanted: tuple, presses: Presses, question: str) -> None:
    suggestion = group["suggestion"] or {}
    if suggestion.get("enter") and (suggestion.get("ticks") == list(wanted) or
                                    group["kind"] == "unanswered" and not any(wanted)):
        presses.press(page, "Enter", question)  # confirm the suggestion, go to the group the page asks for next
        presses.entered += 1
    else:
        for i, tick in enumerate(wanted):
            if tick:
                presses.press(page, str(i + 1), question)
        if not any(wanted):
            presses.press(page, "0", question)
        presses.press(page, "Enter", question)
    presses.judgements += 1


def mark_question(page, truth: dict, presses: Presses) -> None:
    """Mark every group of the question on screen (``truth``: {student: tuple of bools})."""
    while True:
        group = current(page)
        if group is None or group["remaining"] == 0:
            return
        if group["marked"]:  # the focus sits on a marked group only when the question started there
            presses.press(page, "j", group["question"])
            continue
        question = group["question"]
        group = _split_odd_ones(page, group, truth, presses, question)
        _judge(page, group, truth[group["students"][0]], presses, question)


def mark_all(page, truth_by_question: dict) -> Presses:
    """Mark every question, first to last (``]`` moves on); the presses counted."""
    presses = Presses()
    questions = list(truth_by_question)
    for n, question in enumerate(questions):
        page.wait_for_function("(q) => window.__marking.question === q", arg=question, timeout=30_000)
        mark_question(page, truth_by_question[question], presses)
        if n + 1 < len(questions):
            presses.press(page, "]", question)
    settle(page)
    return presses
