"""The table of planted copies: who copied whom, and how the copy was disguised.

The report's similarity section (coursekit/report/similarity.py) must find each copy here and rank it
above every pair of independent work. A :class:`Planted` row is two submissions of the chapter's three
functions: an original (a solution of the mistake table, tests/support/mistakes.py, or a new one written
here) and its copy, disguised in one way or several (renamed variables, other comments and spacing,
independent lines reordered, a loop written as a comprehension, a function split in two, a line without
effect after every line). A :class:`PlantedAnswer` row is a written answer and a copy of it with a few words
changed, in Chinese and in English; :data:`OWN_ANSWERS` are answers to the same questions written
independently. A :class:`SpelledOut` row is the opposite: two students who each wrote, in names of their own,
what the release's comments and the master's solution spell out; they must never be flagged, in any class size.

:func:`class_notebooks` types every row of the mistake table (one independent student each), the planted
pairs and the written answers into the released notebook: the class the unit tests and the browser test
compare. Adding a case is one row.
"""
import copy
import json
import pathlib
import textwrap
from dataclasses import dataclass

from coursekit.paths import ASSIGNMENT, COURSE, MASTER
from support import mistakes
from support.course_tools import fill_solution, index_of
from support.synthetic_class import gradebook_of

ROLES = mistakes.ROLES


def _code(scores: str, mask: str, softmax: str) -> tuple:
    """The three functions' bodies, as typed where the release says ``# 在这里写你的实现``."""
    return tuple(textwrap.dedent(body).strip("\n") for body in (scores, mask, softmax))


def _table(scores: str, mask: str, softmax: str) -> tuple:
    """A solution of the mistake table, by its keys."""
    return _code(mistakes.SCORES[scores], mistakes.MASK[mask], mistakes.SOFTMAX[softmax])


# ---------- new solutions, each in a style of its own ----------
TWO_COPIES = _code("""
    q64 = Q.astype(np.float64)
    k64 = K.astype(np.float64)
    n_q = q64.shape[0]
    for a in range(n_q):
        out[a, :] = scale * (k64 @ q64[a])
""", """
    rows = min(scores.shape[0], mask.shape[0])
    cols = min(scores.shape[1], mask.shape[1])
    scores[:rows, :cols] += mask[:rows, :cols]
""", """
    x = np.asarray(inp, dtype=np.float64)
    peak = np.max(x, axis=-1, keepdims=True)
    num = np.exp(x - peak)
    den = np.sum(num, axis=-1, keepdims=True)
    out[...] = num / den
""")

DOUBLE_LOOP = _code("""
    for i in range(Q.shape[0]):
        for j in range(K.shape[0]):
            out[i, j] = scale * float(np.dot(Q[i], K[j]))
""", """
    view = scores.view()
    view += np.asarray(mask, dtype=scores.dtype)
""", """
    for idx in np.ndindex(inp.shape[:-1]):
        shifted = inp[idx] - inp[idx].max()
        out[idx] = np.exp(shifted) / np.exp(shifted).sum()
""")

FLAT_ROWS = _code("""
    out[...] = np.tensordot(Q, K, axes=([1], [1])) * scale
""", """
    for i, row in enumerate(mask):
        scores[i] += row
""", """
    flat_in = inp.reshape(-1, inp.shape[-1])
    flat_out = out.reshape(-1, out.shape[-1])
    for r in range(flat_in.shape[0]):
        shifted = flat_in[r] - np.max(flat_in[r])
        weights = np.exp(shifted)
        flat_out[r] = weights / np.sum(weights)
""")

ROW_LISTS = _code("""
    rows = []
    for q in Q:
        rows.append([scale * float(q @ k) for k in K])
    out[...] = np.array(rows)
""", """
    it = np.nditer(scores, flags=["multi_index"], op_flags=["readwrite"])
    for cell in it:
        cell[...] += mask[it.multi_index]
""", """
    def stable(row):
        e = np.exp(row - row.max())
        return e / e.sum()

    out[...] = np.apply_along_axis(stable, -1, inp)
""")


BLOCKS = _code("""
    qt = np.ascontiguousarray(Q, dtype=np.float64)
    kt = np.ascontiguousarray(K, dtype=np.float64).T
    prod = qt @ kt
    out[...] = prod * scale
""", """
    rows, cols = mask.shape
    for r in range(rows):
        scores[r, :cols] += mask[r, :cols]
""", """
    lead, width = inp.shape[:-1], inp.shape[-1]
    block = inp.reshape(-1, width).astype(np.float64)
    block = block - block.max(axis=1)[:, None]
    block = np.exp(block)
    block /= block.sum(axis=1)[:, None]
    out[...] = block.reshape(*lead, width)
""")


def _junk_after_every_line(bodies: tuple, junk: str = "_ = 0") -> tuple:
    """``bodies`` with ``junk`` (a statement without effect) after every line, indented to stay where it is."""
    def padded(body: str) -> str:
        lines, out = body.split("\n"), []
        for i, line in enumerate(lines):
            out.append(line)
            after = next((rest for rest in lines[i + 1:] if rest.strip()), "") if line.rstrip().endswith(":") else line
            if line.strip():
                out.append(after[:len(after) - len(after.lstrip())] + junk)
        return "\n".join(out)
    return tuple(padded(body) for body in bodies)


@dataclass(frozen=True)
class Planted:
    """A copied submission: ``copy`` is ``original`` disguised as ``how`` says."""
    name: str
    how: str
    original: tuple    # the three bodies (scores, mask, softmax)
    copy: tuple
    student: str = ""  # the original's student when it is a row of the mistake table (it is in the class already)

    @property
    def students(self) -> tuple:
        return (self.student or f"{self.name}_original", f"{self.name}_copy")


PLANTED = (
    Planted("renamed_and_recommented", "the mistake table's ok_loops: every variable renamed, other comments and "
            "spacing", _table("loops", "loops", "math_loops"), student="ok_loops", copy=_code("""
        for r in range(Q.shape[0]):
            for c in range(K.shape[0]):
                acc = 0.0
                for t in range(Q.shape[1]):
                    acc += Q[r, t]*K[c, t]   # dot product of row r and row c
                out[r, c] = scale*acc
    """, """
        for a in range(scores.shape[0]):
            for b in range(scores.shape[1]):
                # add the mask entry
                scores[a, b] += mask[a, b]
    """, """
        import math

        for pos in np.ndindex(inp.shape[:-1]):
            vals = [float(x) for x in inp[pos]]
            biggest = max(vals)  # subtract the max so exp cannot overflow
            ex = [math.exp(x - biggest) for x in vals]
            s = sum(ex)
            out[pos] = [x / s for x in ex]
    """)),
    Planted("reordered_lines", "independent lines in another order, one variable renamed", TWO_COPIES, _code("""
        k64 = K.astype(np.float64)
        n_q = Q.shape[0]
        q64 = Q.astype(np.float64)
        for a in range(n_q):
            out[a, :] = scale * (k64 @ q64[a])
    """, """
        cols = min(scores.shape[1], mask.shape[1])
        rows = min(scores.shape[0], mask.shape[0])
        scores[:rows, :cols] += mask[:rows, :cols]
    """, """
        x = np.asarray(inp, dtype=np.float64)
        peak = np.max(x, axis=-1, keepdims=True)
        num = np.exp(x - peak)
        total = np.sum(num, axis=-1, keepdims=True)
        out[...] = num / total
    """)),
    Planted("loop_as_comprehension", "the double loop of the scores written as a nested list comprehension",
            DOUBLE_LOOP, _code("""
        out[...] = [[scale * float(np.dot(Q[i], K[j])) for j in range(K.shape[0])] for i in range(Q.shape[0])]
    """, DOUBLE_LOOP[1], """
        for where in np.ndindex(inp.shape[:-1]):
            shifted = inp[where] - inp[where].max()
            out[where] = np.exp(shifted) / np.exp(shifted).sum()
    """)),
    Planted("function_split_in_two", "the softmax's row arithmetic moved into a function of its own", FLAT_ROWS,
            _code(FLAT_ROWS[0], FLAT_ROWS[1], """
        def row_softmax(v):
            shifted = v - np.max(v)
            weights = np.exp(shifted)
            return weights / np.sum(weights)

        flat_in = inp.reshape(-1, inp.shape[-1])
        flat_out = out.reshape(-1, out.shape[-1])
        for r in range(flat_in.shape[0]):
            flat_out[r] = row_softmax(flat_in[r])
    """)),
    Planted("copied_bug", "three of the mistake table's solutions (einsum, the mask on a contiguous copy, the softmax "
            "computed in inp, a bug), copied with other comments and spacing",
            _table("einsum", "contiguous_copy", "in_place_inp"), _code("""
        np.einsum("td,sd->ts", Q, K, out=out)  # all dot products at once
        out *= scale
    """, """
        work = np.ascontiguousarray(scores)
        work += mask   # add the mask
    """, """
        # shift every row by its own maximum first
        inp -= inp.max(axis = -1, keepdims = True)
        np.exp(inp, out = inp)      # exponentiate in place

        out[...] = inp / inp.sum(axis = -1, keepdims = True)
    """)),
    Planted("all_at_once", "a loop as a comprehension, renamed variables, other comments, lines reordered",
            ROW_LISTS, _code("""
        # one row of scores per query
        out[...] = np.array([[scale * float(v @ w) for w in K] for v in Q])
    """, """
        walker = np.nditer(scores, flags=["multi_index"], op_flags=["readwrite"])
        for entry in walker:
            entry[...] += mask[walker.multi_index]  # add the matching mask value
    """, """
        def steady(v):
            # exp of the row minus its max, normalised
            ex = np.exp(v - v.max())
            return ex / ex.sum()
        out[...] = np.apply_along_axis(steady, -1, inp)
    """)),
    Planted("junk_after_every_line", "a verbatim copy with `_ = 0` after every line", BLOCKS,
            _junk_after_every_line(BLOCKS)),
)


@dataclass(frozen=True)
class PlantedAnswer:
    """A written answer to ``question`` and a copy of it with a few words changed."""
    name: str
    question: str
    original: str
    copy: str

    @property
    def students(self) -> tuple:
        return (f"{self.name}_original", f"{self.name}_copy")


PLANTED_ANSWERS = (
    PlantedAnswer("answer_zh_words_changed", "q_think1_scale",
                  "点积是 head_dim 个独立乘积的和，方差随维度线性增长；维度一大，softmax 的输入差距就被拉开，输出接近 "
                  "one-hot，梯度变得很小。除以根号 head_dim 以后方差回到 1 左右，不管维度多大，分布都差不多一样平滑。",
                  "点积是 head_dim 个独立乘积相加，方差随维度线性变大；维度一大，softmax 的输入差距就被拉开，结果接近 "
                  "one-hot，梯度变得非常小。除以根号 head_dim 之后方差回到 1 附近，不管维度多大，分布都差不多一样平滑。"),
    PlantedAnswer("answer_en_words_changed", "q_think3_max_trick",
                  "Softmax does not change when the same constant is subtracted from every entry of a row, because "
                  "the factor exp(-c) cancels between numerator and denominator. Subtracting the row maximum makes the "
                  "largest exponent exp(0) = 1, so nothing overflows and the denominator is at least one.",
                  "Softmax is unchanged when one constant is subtracted from every entry of a row, since the factor "
                  "exp(-c) cancels out between numerator and denominator. Taking away the row maximum makes the "
                  "largest exponent exp(0) = 1, so nothing can overflow and the denominator stays at least one."),
)

# Answers to the same questions, each written on its own: none is a copy of another.
OWN_ANSWERS = {
    "q_think1_scale": (
        "维度越高，q·k 的数值越大，softmax 会把几乎全部注意力给一个位置，训练时梯度消失。缩放让分数保持在合适的范围。",
        "不除的话分数的标准差是 sqrt(head_dim)，比如 64 维时约为 8，softmax 太尖锐。除以 sqrt(head_dim) 正好把标准差变回 1。",
        "我觉得主要是为了数值稳定：分数太大时 exp 容易溢出，而且权重会集中在一个位置上。",
        "If we do not scale, the scores grow with the dimension and the softmax becomes almost a max, so learning "
        "slows down. Dividing by sqrt(head_dim) keeps the spread of the scores the same for any head size.",
        "Each score is a sum of head_dim terms; its variance is head_dim. The scale 1/sqrt(head_dim) normalises it "
        "to unit variance so the attention weights stay soft.",
    ),
    "q_think3_max_trick": (
        "减去最大值是为了防止 exp 溢出。因为 softmax 的分子和分母都乘上同一个数，结果不会改变。",
        "exp(1000) 会变成 inf，减去每行最大值以后所有指数都不超过 1，结果和原来一样，所以更稳定。",
        "The trick avoids overflow: after the shift every exponent is at most zero, so exp gives numbers between 0 "
        "and 1, and the result is the same because the shift cancels.",
        "Without it a large logit such as 1000 makes exp return inf and the row becomes NaN. With the maximum taken "
        "away the biggest term is 1 and the sum cannot be zero.",
    ),
}


@dataclass(frozen=True)
class SpelledOut:
    """Two students who each replaced the stubs' ``pass`` with what the stubs' comments spell out (``scale * Q @
    K^T`` into ``out``, ``scores[i][j] += mask[i][j]``) and the max-shifted softmax, each in names of their own."""
    name: str
    how: str
    first: tuple     # the three bodies (scores, mask, softmax)
    second: tuple

    @property
    def students(self) -> tuple:
        return (f"{self.name}_first", f"{self.name}_second")


SPELLED_OUT = (
    SpelledOut("as_the_comments_say", "each the comments' lines and the max-shifted softmax, own names", _code("""
        out[:] = scale * Q @ K.T
    """, """
        scores += mask
    """, """
        shifted = inp - inp.max(axis=-1, keepdims=True)
        e = np.exp(shifted)
        out[:] = e / e.sum(axis=-1, keepdims=True)
    """), _code("""
        out[:] = scale * Q @ K.T
    """, """
        scores += mask
    """, """
        z = inp - inp.max(axis=-1, keepdims=True)
        numer = np.exp(z)
        out[:] = numer / numer.sum(axis=-1, keepdims=True)
    """)),
)


def _typed(release, bodies: tuple = (), answers=None):
    """A copy of ``release`` with the three functions' ``bodies`` typed in (if given) and ``answers``
    ({grade_id: text})."""
    nb = copy.deepcopy(release)
    for role, body in zip(ROLES, bodies):
        fill_solution(nb, role, body)
    for grade_id, text in (answers or {}).items():
        nb.cells[index_of(nb, grade_id)].source = text
    return nb


def independent_answers(students: list) -> dict:
    """{student: {grade_id: text}}: each of :data:`OWN_ANSWERS` given to one of ``students``, in turn."""
    given = {}
    owners = iter(students)
    for question, texts in OWN_ANSWERS.items():
        for text in texts:
            given.setdefault(next(owners), {})[question] = text
    return given


def class_notebooks(release, only=None) -> dict:
    """{student: notebook}: one student per row of the mistake table (some with an independent written answer),
    both sides of every planted row (``<name>_original``, ``<name>_copy``) and of every :data:`SPELLED_OUT` row;
    ``only``: just these students."""
    wanted = (lambda student: True) if only is None else set(only).__contains__
    own = independent_answers([m.name for m in mistakes.MISTAKES])
    notebooks = {m.name: _typed(mistakes.mistake_notebook(release, m), answers=own.get(m.name))
                 for m in mistakes.MISTAKES if wanted(m.name)}
    ok = _table(*mistakes.OK)
    for row in PLANTED:
        sides = dict(zip(row.students, (None if row.student else row.original, row.copy)))
        notebooks.update({s: _typed(release, code) for s, code in sides.items() if code and wanted(s)})
    for row in PLANTED_ANSWERS:
        notebooks.update({s: _typed(release, ok, {row.question: text})
                          for s, text in zip(row.students, (row.original, row.copy)) if wanted(s)})
    for row in SPELLED_OUT:
        notebooks.update({s: _typed(release, code) for s, code in zip(row.students, (row.first, row.second))
                          if wanted(s)})
    return notebooks


def planted_pairs() -> set:
    """Every planted pair, as a frozenset of its two students."""
    return {frozenset(row.students) for row in (*PLANTED, *PLANTED_ANSWERS)}


def independent_students() -> list:
    """The mistake table's students and the :data:`SPELLED_OUT` ones: no two of them copied from each other."""
    return [m.name for m in mistakes.MISTAKES] + [s for row in SPELLED_OUT for s in row.students]


def write_notebooks(course, notebooks: dict, stage: str = "autograded", assignment: str = ASSIGNMENT) -> None:
    """``notebooks`` ({student: notebook}) into ``course/<stage>/<student>/<assignment>/`` (plain JSON: fast)."""
    for student, nb in notebooks.items():
        folder = pathlib.Path(course) / stage / student / assignment
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"{assignment}.ipynb").write_text(json.dumps(nb, ensure_ascii=False), encoding="utf-8")


def write_course(course, release, lang: str = "zh") -> pathlib.Path:
    """A course folder holding the chapter's master as ``source/``, ``release`` as its release and the course's
    config, speaking ``lang``."""
    course = pathlib.Path(course)
    for stage, text in (("source", MASTER.read_text(encoding="utf-8")), ("release", json.dumps(release))):
        (course / stage / ASSIGNMENT).mkdir(parents=True, exist_ok=True)
        (course / stage / ASSIGNMENT / f"{ASSIGNMENT}.ipynb").write_text(text, encoding="utf-8")
    config = (COURSE / "nbgrader_config.py").read_text(encoding="utf-8")
    (course / "nbgrader_config.py").write_text(config + f"\nc.CourseKit.language = {lang!r}\n", encoding="utf-8")
    return course


def write_class(course, lang: str = "zh") -> str:
    """The planted class (:func:`class_notebooks`) as a graded course: source, release, config in ``lang``, a
    gradebook with every student's submission (a minute apart) and their notebooks in ``autograded/``; its URL."""
    release = mistakes.release()
    notebooks = class_notebooks(release)
    write_course(course, release, lang)
    times = {s: f"2026-12-03 09:{i // 60:02d}:{i % 60:02d} UTC" for i, s in enumerate(sorted(notebooks))}
    url = gradebook_of(release, pathlib.Path(course) / "gradebook.db", students=sorted(notebooks), timestamps=times)
    write_notebooks(course, notebooks)
    return url
