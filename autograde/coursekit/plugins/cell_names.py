"""What the chapter calls each graded cell: the heading above it, as students read it.

nbgrader names a graded cell by its ``grade_id`` (``q_think1_scale``) or by its kind (``Test
cell``, ``Written response``). The chapter already names them, once, in its own headings:
``### 思考题 1`` above a written answer, ``### 任务 2：实现 `student_attention_scores```
above the solution and test cell of TEST 1. :func:`cell_names` reads those headings from the
notebook being shown — the autograded copy in feedback, the student's copy in validate — so a
renamed heading renames the cell everywhere, with no list to keep in step.

A test cell also carries its TEST number (``attnkit.gradecell.TEST_CELLS``, the one place for
it), which the cell's printed ``[TEST n]`` lines use too: ``TEST 1 · 任务 2：实现 …``.
"""
import re

from attnkit.gradecell import TEST_CELLS

__all__ = ["cell_names", "heading_above"]

_HEADING = re.compile(r"^\s{0,3}#{1,6}\s+(.+?)\s*#*\s*$")
_MARKUP = re.compile(r"`|\*\*")  # code and bold marks: the name is plain text
_TEST_NUMBER = {test.grade_id: test.number for test in TEST_CELLS}


def _source(cell) -> str:
    source = cell.get("source", "")
    return "".join(source) if isinstance(source, list) else source


def _plain(heading: str) -> str:
    return _MARKUP.sub("", heading).strip()


def heading_above(cells, index: int) -> str:
    """The last heading of the nearest markdown cell above ``cells[index]`` that has one ('' if none)."""
    for cell in reversed(cells[:index]):
        if cell.get("cell_type") != "markdown":
            continue
        headings = [m.group(1) for m in map(_HEADING.match, _source(cell).splitlines()) if m]
        if headings:
            return _plain(headings[-1])
    return ""


def cell_names(nb) -> dict:
    """``{grade_id: name}`` of every graded cell of ``nb`` (a notebook or its JSON), in notebook order.

    The name is the heading above the cell; a test cell's starts with ``TEST n · `` unless the
    heading says so already; a cell with no heading above it keeps its grade id.
    """
    cells, names = nb.get("cells", []), {}
    for index, cell in enumerate(cells):
        meta = cell.get("metadata", {}).get("nbgrader", {}) or {}
        if not (meta.get("grade") and meta.get("grade_id")):
            continue
        grade_id = meta["grade_id"]
        name = heading_above(cells, index) or grade_id
        number = _TEST_NUMBER.get(grade_id)
        if number is not None and not meta.get("solution") and f"TEST {number}" not in name:
            name = f"TEST {number} · {name}"
        names[grade_id] = name
    return names
