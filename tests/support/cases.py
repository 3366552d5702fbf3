"""Submissions the grading tests need beyond the mistake table, each with what it must score.

:data:`CASES` lists them as :class:`Case` rows, in the mistake table's style: how the submission is
made from the released notebook, the points each test cell must give (hand-derived) and, for a
notebook nbgrader cannot grade, the reason the gradebook must record. The mistake table
(:mod:`.mistakes`) and these rows together are the class that :mod:`.classes` grades once per test
session. Adding a case is one row.
"""
import copy
import uuid
from dataclasses import dataclass, field
from typing import Callable

import nbformat

from support.course_tools import fill_solution, index_of
from support.mistakes import FULL, submission

UNTOUCHED = (1.75, 1.0, 0.25, 0.5)  # the release's baseline (autograde/README.md, "Points")
ZERO = (0.0, 0.0, 0.0, 0.0)
STUBS_FIRST = "scores_out_not_written"  # what the diagnosis names first for the release's stubs


@dataclass(frozen=True)
class Case:
    """One submission: how it is made, what it scores, why nbgrader refuses it (``reason``), files beside it,
    and the first bug the grader's diagnosis names (None: no finding, or not graded)."""
    name: str
    build: Callable  # release notebook -> submitted notebook (or raw text)
    points: tuple
    reason: str = ""  # not "": ungradable, every grade 0 and this text in the recorded reason
    files: dict = field(default_factory=dict)  # {path next to the notebook: text}
    diagnosis: str | None = None

    @property
    def gradable(self) -> bool:
        return not self.reason


def with_copied_cell(nb, grade_id, offset):
    """A pasted copy of cell ``grade_id`` (new cell id, same nbgrader metadata) at index + offset."""
    nb = copy.deepcopy(nb)
    index = index_of(nb, grade_id)
    pasted = copy.deepcopy(nb.cells[index])
    pasted["id"] = uuid.uuid4().hex[:8]
    nb.cells.insert(index + offset, pasted)
    return nb


def with_cell_after(nb, grade_id, source):
    """A student's added cell (no nbgrader metadata) right after the cell ``grade_id``."""
    nb = copy.deepcopy(nb)
    nb.cells.insert(index_of(nb, grade_id) + 1, nbformat.v4.new_code_cell(source))
    return nb


def with_source_replaced(nb, grade_id, old, new):
    """Cell ``grade_id`` with its first ``old`` replaced by ``new`` (metadata kept)."""
    nb = copy.deepcopy(nb)
    cell = nb.cells[index_of(nb, grade_id)]
    assert old in cell.source, (grade_id, old)
    cell.source = cell.source.replace(old, new, 1)
    return nb


def with_function(nb, grade_id, source):
    """The solution cell ``grade_id`` rewritten as ``source`` (metadata kept)."""
    nb = copy.deepcopy(nb)
    nb.cells[index_of(nb, grade_id)].source = source
    return nb


# A correct softmax with the debug line of issue 16: printed by every call of the grader's checks.
FLOOD = """z = np.exp(inp - np.max(inp, axis=-1, keepdims=True))
out[...] = z / np.sum(z, axis=-1, keepdims=True)
print('x' * 10_000_000)  # 调试用"""
FAKE_GRADER = "def grade(*args):\n    print('fake grader')\n    return 100.0\n"


def nested(release):
    """A notebook whose JSON nests deeper than any parser recurses: not a notebook, never the machine's fault."""
    return '{"cells": [' + "[" * 200_000 + "]" * 200_000 + "]}"


def oversized(release):
    """The release with 17 MB of saved output: more than a notebook may be (coursekit.student_files)."""
    nb = copy.deepcopy(release)
    nb.cells[index_of(nb, "setup_imports")].outputs = [nbformat.v4.new_output("stream", text="x" * 17_000_000)]
    return nb


def with_kernel(release, name):
    """The release naming a kernel no machine has: every grading kernel is the course's, whatever it names."""
    nb = copy.deepcopy(release)
    nb.metadata["kernelspec"] = {"name": name, "display_name": name, "language": "brainfuck"}
    return nb


# what a terminal would obey: set its title, clear the screen, a bidirectional override; inside an unreadable notebook
ESCAPES = "\x1b]0;owned\x07\x1b[2J\u202e"


def flooding(release):
    """The correct submission, its softmax replaced by FLOOD (typed into the release's stub, input checks kept)."""
    nb, index = submission(release), index_of(release, "student_softmax")
    nb.cells[index].source = fill_solution(copy.deepcopy(release), "student_softmax", FLOOD).cells[index].source
    return nb


CASES = (
    # ---------- nbgrader cannot grade these: 0 with the reason, the class goes on (issue 4) ----------
    Case("a_copied_solution_cell", lambda r: with_copied_cell(submission(r), "student_softmax", 1), ZERO,
         "nbgrader cells appear more than once (copied or split with their metadata): student_softmax"),
    Case("b_copied_test_cell", lambda r: with_copied_cell(submission(r), "test1_scores", 0), ZERO,
         "appear more than once (copied or split with their metadata): test1_scores"),
    Case("c_invalid_json", lambda r: '{"cells": [', ZERO, "NotJSONError: Notebook does not appear to be JSON"),
    Case("d_os_exit", lambda r: with_function(submission(r), "student_apply_mask",
                                              "import os\n\n\ndef student_apply_mask(scores, mask):\n    os._exit(1)\n"),
         ZERO, "DeadKernelError: Kernel died"),
    # the loop is interrupted once, in TEST 3 (an error: 0); later cells report it (TEST 4: 0); TEST 1-2 graded
    # whatever a notebook holds, it is never the machine's fault: too deep, too large, an unknown kernel
    Case("c_nested_beyond_parsing", nested, ZERO, "RecursionError"),
    Case("c_over_the_size_a_notebook_may_have", oversized, ZERO, "more than the 16777216 a notebook may have"),
    Case("c_terminal_escapes_in_its_error", lambda r: '{"cells": [' + ESCAPES, ZERO,
         "NotJSONError: Notebook does not appear to be JSON"),
    Case("unknown_kernel", lambda r: with_kernel(r, "no-such-kernel"), UNTOUCHED, diagnosis=STUBS_FIRST),
    Case("e_infinite_loop", lambda r: with_function(submission(r), "student_softmax",
                                                    "def student_softmax(out, inp):\n    while True:\n        pass\n"),
         (4.0, 3.0, 0.0, 0.0)),
    # ---------- the untouched release, with files named like the grader next to it (never loaded) ----------
    Case("shadow_grader", lambda r: r, UNTOUCHED,
         files={"grader/__init__.py": FAKE_GRADER, "_attn_grader.py": FAKE_GRADER, "grader.py": FAKE_GRADER},
         diagnosis="scores_out_not_written"),
    # ---------- a print flood: the output cap keeps the score (issue 16) ----------
    Case("flood", flooding, FULL),
    # ---------- what a notebook does around the functions (issue 9); tampering scores 0 and is not diagnosed ----------
    Case("shadowed_builtins", lambda r: with_cell_after(submission(r), "student_attention_scores",
                                                        "from numpy import *\n\ndef sum(values):\n    return 0"), FULL),
    Case("redefined_as_reference", lambda r: with_cell_after(submission(r), "student_softmax",
                                                             "import attnkit\nstudent_softmax = attnkit.lab.softmax"),
         (4.0, 3.0, 0.0, 0.0)),
    # attnkit patched in the kernel: the grader runs in its own process, with its own attnkit, so the patch
    # changes nothing (before #37 an in-kernel integrity check scored it 0; now it scores as the release)
    Case("patched_verify", lambda r: with_cell_after(r, "student_attention_scores",
                                                     "import attnkit\nattnkit.verify._eq = lambda value, expected: True"),
         UNTOUCHED, diagnosis=STUBS_FIRST),
    # a test cell edited to claim full marks: nbgrader grades the released cell; the student is listed (#1961)
    Case("edited_test_cell", lambda r: with_source_replaced(submission(r), "test1_scores",
                                                                     "gradecell.run(1, student_attention_scores)", "4.0"), FULL),
)

BY_NAME = {case.name: case for case in CASES}
