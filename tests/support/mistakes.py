"""The table of student mistakes: code, the diagnosis it must get, the points it must get.

:data:`MISTAKES` is the one place a student mistake is written down. Each :class:`Mistake` names
one implementation per lab function (keys of :data:`SCORES`, :data:`MASK`, :data:`SOFTMAX`: the
code a student types where the release says ``# 在这里写你的实现``; the given input checks
above it and ``return 0`` below the scores stub stay, as in the lab), the bug id the diagnosis
must name first (``None``: no finding), and the points each test cell must give, derived by
hand from the checks (see :data:`MISTAKES`' comments). One table drives the diagnosis tests
(tests/unit/test_diagnose.py), the grader's unit tests (tests/unit/test_grader.py), the graded
classes (tests/support/classes.py) and benchmarks/. Adding a mistake is one entry. A second table,
:data:`DIAGNOSED`, holds the submissions only the diagnosis tests ask about (no points).

:func:`submission` types a mistake into a released notebook; :func:`functions` turns it into
the three Python functions exactly as the notebook would define them.
"""
import contextlib
import copy
import io
import textwrap
from dataclasses import dataclass

import nbformat

from attnkit import language
from coursekit.paths import STUDENT_NOTEBOOK as STUDENT
from support.course_tools import fill_solution, index_of

ROLES = ("student_attention_scores", "student_apply_mask", "student_softmax")

SCORES = {
    # ---- correct ----
    "dot": "out[:] = np.dot(Q, K.T) * scale",
    "loops": """
        for i in range(Q.shape[0]):
            for j in range(K.shape[0]):
                total = 0.0
                for d in range(Q.shape[1]):
                    total += Q[i, d] * K[j, d]  # 按 K[j][d] 读取
                out[i, j] = scale * total
    """,
    "einsum": """
        np.einsum("td,sd->ts", Q, K, out=out)
        out *= scale
    """,
    "matmul_out": """
        np.matmul(Q, K.T, out=out)
        np.multiply(out, scale, out=out)
    """,
    "rows": """
        for i, q in enumerate(Q):
            out[i] = scale * (K @ q)
    """,
    "float64": "out[...] = scale * (Q.astype(np.float64) @ K.astype(np.float64).T)",
    # ---- buggy ----
    "hardcoded": """
        known = {(2, 2): [[0.5, 0.0], [0.0, 0.5]], (3, 3): np.eye(3), (4, 4): 0.5 * np.eye(4)}
        out[...] = known.get(out.shape, 0.0)
    """,
    "fixed_size": """
        for i in range(2):  # verify 的 TEST 1 先是 2×2：尺寸写死了
            for j in range(2):
                out[i, j] = scale * np.dot(Q[i], K[j])
    """,
    "q_qt": "out[...] = scale * (Q @ Q.T)",
    "k_qt": "out[...] = scale * (K @ Q.T)",
    "no_scale": "out[...] = Q @ K.T",
    "default_scale": "out[...] = (Q @ K.T) / np.sqrt(Q.shape[1])",
    "rebind_out": "out = scale * (Q @ K.T)",
    "accumulate": "out += scale * (Q @ K.T)",
    "scale_q_in_place": """
        Q *= scale
        out[...] = Q @ K.T
    """,
    "delegate": """
        import attnkit
        out[...] = attnkit.naive.attention_scores(Q, K, scale)
    """,
    "thread_pool": """
        import concurrent.futures
        import attnkit
        with concurrent.futures.ThreadPoolExecutor(1) as pool:
            out[...] = pool.submit(attnkit.attention_scores, Q, K, scale).result()
    """,
    # ---- the diagnosis table only (DIAGNOSED) ----
    "matmul_int64": """
        np.matmul(Q, K.T, out=out)
        out *= scale
        return np.int64(0)  # a numpy integer is the C int 0 too
    """,
    "broadcast_f64": """
        products = Q.astype(np.float64)[:, None, :] * K.astype(np.float64)[None, :, :]  # (T, S, D)
        out[:] = products.sum(axis=-1) * scale
    """,
    "stub": "pass",
    "divided": "out[...] = Q @ K.T / scale",
    "no_return": """
        out[...] = scale * (Q @ K.T)
        return None
    """,
    "raises": 'raise NotImplementedError("TODO: 点积")',
    "in_float32": "out[...] = np.float32(scale) * (Q.astype(np.float32) @ K.astype(np.float32).T)",
    "off_by_one": "out[...] = scale * (Q @ K.T) + 1.0",
}

MASK = {
    # ---- correct ----
    "add": "scores += mask",
    "loops": """
        for i in range(scores.shape[0]):
            for j in range(scores.shape[1]):
                scores[i, j] += mask[i, j]
    """,
    "np_add_out": "np.add(scores, mask, out=scores)",
    "assign_sum": "scores[...] = scores + mask",
    # ---- buggy ----
    "assign_mask": "scores[:] = mask",
    "multiply": "scores *= mask",
    "rebind": "scores = scores + mask",
    "contiguous_copy": """
        work = np.ascontiguousarray(scores)  # 对非连续视图会复制一份
        work += mask
    """,
    "reshape": """
        flat = scores.reshape(-1)  # 视图步长不均匀时 reshape 会复制
        flat += mask.reshape(-1)
    """,
    # ---- the diagnosis table only (DIAGNOSED) ----
    "stub": "pass",
    "np_add_dropped": "np.add(scores, mask)",
    "raises": 'raise KeyError("mask")',
    "clobbers_mask": """
        mask += scores
        scores[...] = mask
    """,
    "in_float32": "scores[...] = scores.astype(np.float32) + mask.astype(np.float32)",
    "subtracted": "scores -= mask",
    "fixed_size": """
        for i in range(3):  # verify 的 TEST 2 是 3×3：尺寸写死了
            for j in range(3):
                scores[i, j] += mask[i, j]
    """,
}

SOFTMAX = {
    # ---- correct ----
    "vectorised": """
        z = np.exp(inp - np.max(inp, axis=-1, keepdims=True))
        out[...] = z / np.sum(z, axis=-1, keepdims=True)
    """,
    "math_loops": """
        import math
        for idx in np.ndindex(inp.shape[:-1]):
            row = [float(v) for v in inp[idx]]
            top = max(row)
            exps = [math.exp(v - top) for v in row]
            total = sum(exps)
            out[idx] = [e / total for e in exps]
    """,
    "rows": """
        for idx in np.ndindex(inp.shape[:-1]):
            e = np.exp(inp[idx] - inp[idx].max())
            out[idx] = e / e.sum()
    """,
    "exp_out": """
        np.subtract(inp, inp.max(axis=-1, keepdims=True), out=out)
        np.exp(out, out=out)
        out /= out.sum(axis=-1, keepdims=True)
    """,
    "float64": """
        x = inp.astype(np.float64)
        e = np.exp(x - x.max(axis=-1, keepdims=True))
        out[...] = e / e.sum(axis=-1, keepdims=True)
    """,
    "helper": """
        e = stable_exp(inp)  # 定义在前面自己加的单元格里
        out[...] = e / e.sum(axis=-1, keepdims=True)
    """,
    # ---- buggy ----
    "axis0": """
        e = np.exp(inp - inp.max(axis=0, keepdims=True))
        out[...] = e / e.sum(axis=0, keepdims=True)
    """,
    "no_max": """
        e = np.exp(inp)
        out[...] = e / e.sum(axis=-1, keepdims=True)
    """,
    "unnormalised": "out[...] = np.exp(inp - inp.max(axis=-1, keepdims=True))",
    "rebind_out": """
        e = np.exp(inp - inp.max(axis=-1, keepdims=True))
        out = e / e.sum(axis=-1, keepdims=True)
    """,
    "global_max": """
        e = np.exp(inp - inp.max())
        out[...] = e / e.sum(axis=-1, keepdims=True)
    """,
    "axis1": """
        e = np.exp(inp - inp.max(axis=1, keepdims=True))
        out[...] = e / e.sum(axis=1, keepdims=True)
    """,
    "in_place_inp": """
        inp -= inp.max(axis=-1, keepdims=True)
        np.exp(inp, out=inp)
        out[...] = inp / inp.sum(axis=-1, keepdims=True)
    """,
    "delegate": """
        import attnkit
        out[...] = attnkit.softmax(inp)
    """,
    # ---- delegation the grader must still see (issue 15) ----
    "thread": """
        import threading
        import attnkit
        box = {}
        worker = threading.Thread(target=lambda: box.update(w=attnkit.softmax(inp)))
        worker.start()
        worker.join()
        out[...] = box["w"]
    """,
    "raw_thread": """
        import _thread
        import attnkit
        done, box = _thread.allocate_lock(), {}
        done.acquire()
        def work():
            try:
                box["w"] = attnkit.softmax(inp)
            finally:
                done.release()
        _thread.start_new_thread(work, ())
        done.acquire()
        out[...] = box["w"]
    """,
    "pool_made_earlier": """
        import attnkit
        out[...] = POOL.submit(attnkit.softmax, inp).result()  # POOL: a thread pool from an earlier cell
    """,
    "subprocess": """
        import pickle
        import subprocess
        import sys
        child = "import pickle, sys, attnkit; x = pickle.load(sys.stdin.buffer); " \\
                "sys.stdout.buffer.write(pickle.dumps(attnkit.softmax(x)))"
        done = subprocess.run([sys.executable, "-c", child], input=pickle.dumps(inp), capture_output=True)
        out[...] = pickle.loads(done.stdout)
    """,
    "fork": """
        import multiprocessing
        import attnkit
        with multiprocessing.get_context("fork").Pool(1) as pool:
            out[...] = pool.apply(attnkit.softmax, (inp,))
    """,
    "map_rows": """
        import attnkit
        flat = inp.reshape(-1, inp.shape[-1])
        out[...] = np.array(list(map(attnkit.softmax, flat))).reshape(inp.shape)
    """,
    "found_by_inspect": """
        import inspect
        import sys
        found = dict(inspect.getmembers(sys.modules["attnkit.attention"], inspect.isfunction))["softmax"]
        out[...] = found(inp)
    """,
}

SOFTMAX.update({
    # ---- the diagnosis table only (DIAGNOSED) ----
    "logsumexp_f64": """
        x = inp.astype(np.float64)  # in float32, -1e9 + log(4) rounds back to -1e9: a masked row would sum to 4
        top = x.max(axis=-1, keepdims=True)
        out[...] = np.exp(x - (top + np.log(np.exp(x - top).sum(axis=-1, keepdims=True))))
    """,
    "row_views": """
        rows, flat = inp.reshape(-1, inp.shape[-1]), out.reshape(-1, out.shape[-1])  # views of (rows, S)
        for r in range(rows.shape[0]):
            e = np.exp(rows[r] - rows[r].max())
            flat[r] = e / e.sum()
    """,
    "in_out": """
        out[...] = inp
        out -= out.max(axis=-1, keepdims=True)
        np.exp(out, out=out)
        out /= out.sum(axis=-1, keepdims=True)
    """,
    "stub": "pass",
    "min_shift": """
        e = np.exp(inp - inp.min(axis=-1, keepdims=True))
        out[...] = e / e.sum(axis=-1, keepdims=True)
    """,
    "whole": """
        e = np.exp(inp - inp.max())
        out[...] = e / e.sum()
    """,
    "returns_new": """
        e = np.exp(inp - inp.max(axis=-1, keepdims=True))
        return e / e.sum(axis=-1, keepdims=True)
    """,
    "raises": 'raise ZeroDivisionError("division by zero")',
    "in_float32": """
        x = inp.astype(np.float32)
        e = np.exp(x - x.max(axis=-1, keepdims=True))
        out[...] = e / e.sum(axis=-1, keepdims=True)
    """,
    "squared": """
        e = np.exp(inp - inp.max(axis=-1, keepdims=True))
        out[...] = (e / e.sum(axis=-1, keepdims=True)) ** 2
    """,
    "epsilon": """
        e = np.exp(inp - inp.max(axis=-1, keepdims=True))
        out[...] = e / (e.sum(axis=-1, keepdims=True) + 1e-3)  # "为了保险"：每行和只有约 0.999
    """,
    "first_axis_only": """
        for i in range(inp.shape[0]):  # 3-D 输入时 inp[i] 是一个矩阵，被当作整体归一化
            e = np.exp(inp[i] - inp[i].max())
            out[i] = e / e.sum()
    """,
    "scalar_loops": """
        import math
        for i in range(inp.shape[0]):
            top = float(inp[i].max())
            total = sum(math.exp(float(v) - top) for v in inp[i])  # 3-D 输入时 float(row) 会出错
            for j in range(inp.shape[1]):
                out[i, j] = math.exp(float(inp[i, j]) - top) / total
    """,
})

# Code a student may put into cells of their own, before the given grade_id.
ADDED_CELLS = {
    "helper": ("student_softmax", "def stable_exp(x):\n    return np.exp(x - x.max(axis=-1, keepdims=True))\n"),
    "pool_made_earlier": ("student_softmax", "import concurrent.futures\n\n"
                          "POOL = concurrent.futures.ThreadPoolExecutor(1)\nPOOL.submit(print, end='').result()\n"),
}

# Whole cells a student rewrote, the given input check deleted: {role: {key: the cell's source}}.
WHOLE_CELLS = {
    "student_attention_scores": {"unchecked": """import numpy as np


def student_attention_scores(Q, K, scale, out):
    out[...] = scale * (Q @ K.T)
    return 0
"""},
    "student_apply_mask": {"unchecked_overlap": """def student_apply_mask(scores, mask):
    rows, cols = min(scores.shape[0], mask.shape[0]), min(scores.shape[1], mask.shape[1])
    scores[:rows, :cols] += mask[:rows, :cols]
"""},
    "student_softmax": {"no_input_check": """import numpy as np


def student_softmax(out, inp):
    e = np.exp(inp - inp.max(axis=-1, keepdims=True))
    out[...] = e / e.sum(axis=-1, keepdims=True)
"""},
}


def submission(release, scores="dot", mask="add", softmax="vectorised"):
    """A copy of the released notebook with the three implementations typed in (cell metadata kept)."""
    nb = copy.deepcopy(release)
    for role, key, bodies in zip(ROLES, (scores, mask, softmax), (SCORES, MASK, SOFTMAX)):
        if key in WHOLE_CELLS[role]:
            nb.cells[index_of(nb, role)].source = WHOLE_CELLS[role][key]
        else:
            fill_solution(nb, role, textwrap.dedent(bodies[key]).strip("\n"))
    if softmax in ADDED_CELLS:
        before, source = ADDED_CELLS[softmax]
        nb.cells.insert(index_of(nb, before), nbformat.v4.new_code_cell(source))
    return nb


@dataclass(frozen=True)
class Mistake:
    """One submission: an implementation per function, the first bug the diagnosis names, the points."""
    name: str
    code: tuple         # keys into SCORES, MASK, SOFTMAX
    diagnosis: str | None
    points: tuple       # (test1_scores, test2_mask, test3_softmax, test4_end_to_end)

    @property
    def correct(self) -> bool:
        return self.points == FULL


FULL = (4.0, 3.0, 3.0, 2.0)
OK = ("dot", "add", "vectorised")


def _entry(name, diagnosis, points, scores="dot", mask="add", softmax="vectorised"):
    return Mistake(name, (scores, mask, softmax), diagnosis, points)


# Points derived by hand: every check is worth 0.25 (TEST 1: 9 visible + 7 hidden for 4 points,
# TEST 2: 6 + 6 for 3, TEST 3: 4 + 8 for 3, TEST 4: 3 + 5 for 2). "v a/b" = visible checks passed,
# "h c/d" = hidden checks passed. TEST 1-3's last hidden check ("rejects bad input" / "shape
# mismatch") is the given input check, which every body keeps. A buggy entry changes one function.
MISTAKES = (
    # ---------- correct, each in its own style: full autograded marks, no finding ----------
    _entry("ok_dot", None, FULL),
    _entry("ok_loops", None, FULL, "loops", "loops", "math_loops"),
    _entry("ok_einsum_out", None, FULL, "einsum", "np_add_out", "exp_out"),
    _entry("ok_matmul_out", None, FULL, "matmul_out", "assign_sum", "rows"),
    _entry("ok_rows", None, FULL, "rows", "loops", "rows"),
    _entry("ok_float64", None, FULL, "float64", "np_add_out", "float64"),
    _entry("ok_helper_cell", None, FULL, "dot", "assign_sum", "helper"),
    # ---------- TEST 1 bugs (student_attention_scores) ----------
    # identity-only answers: v 9/9, h 1/7 | T4 v 3/3 (identity again), h 0/5; no rule fits a lookup table
    _entry("bug_hardcoded", "scores_wrong_values", (2.5, 3.0, 3.0, 0.75), scores="hardcoded"),
    # Q@Q^T = Q@K^T when Q = K = I: v 9/9, h 1/7 (non-square: broadcast error) | T4 v 3/3, h 0/5
    _entry("bug_q_qt", "scores_q_qt", (2.5, 3.0, 3.0, 0.75), scores="q_qt"),
    # (Q@K^T)^T, symmetric for identities: v 9/9, h 1/7 | T4 v 3/3, h 0/5
    _entry("bug_k_qt", "scores_k_qt", (2.5, 3.0, 3.0, 0.75), scores="k_qt"),
    # right only when scale = 1: v 7/9 (out[0][0], out[1][1] of the 0.5 case), h 2/7 (scale 1.0 + rejects)
    # | T4 v 3/3 (unscaled identity still masks and normalises), h 1/5: the integer case (scale 4) is
    # saturated, its rows are one-hot or [0, ½, 0, ½] scaled or not (within 1e-4); 1/√8, 0.7, 0.5, 0.5 fail
    _entry("bug_no_scale", "scores_missing_scale", (2.25, 3.0, 3.0, 1.0), scores="no_scale"),
    # 1/sqrt(head_dim) instead of scale: v 6/9 (0.5 ≠ 1/√2, 1 ≠ 1/√3), h 2/7 (D=5 with 1/√5; rejects)
    # | T4 v 3/3 (D=4: 0.5), h 3/5 (D=8 with 1/√8, and two cases D=4 with 0.5; fails 0.7 and 4)
    _entry("bug_default_scale", "scores_wrong_scale", (2.0, 3.0, 3.0, 1.5), scores="default_scale"),
    # out rebound = the stub: v 6/9, h 1/7 | T4 v 3/3 (zero scores still mask and normalise), h 0/5
    _entry("bug_rebind_out", "scores_out_rebound", (1.75, 3.0, 3.0, 0.75), scores="rebind_out"),
    # out += ...: right whenever out starts at 0: v 9/9, h 6/7 (fails the 7.0 pre-fill) | T4 8/8;
    # the diagnosis' probes start from zeros too, so it cannot see this one
    _entry("bug_accumulate", None, (3.75, 3.0, 3.0, 2.0), scores="accumulate"),
    # Q *= scale: values right, Q changed: v 9/9, h 2/7 (unchanged only for scale 1.0; rejects)
    # | T4 8/8 (the pipeline does not look at Q afterwards)
    _entry("bug_scale_q_in_place", "scores_mutates_input", (2.75, 3.0, 3.0, 2.0), scores="scale_q_in_place"),
    # attnkit.naive does the work: TEST 1 and TEST 4 score 0 (its values are right: no finding)
    _entry("bug_delegate_scores", None, (0.0, 3.0, 3.0, 0.0), scores="delegate"),
    # the reference run in a thread pool made inside the function: TEST 1 and TEST 4 score 0
    _entry("bug_delegate_scores_thread_pool", None, (0.0, 3.0, 3.0, 0.0), scores="thread_pool"),
    # ---------- TEST 2 bugs (student_apply_mask) ----------
    # scores[:] = mask: verify's scores are zeros: v 6/6, h 1/6 | T4 v 3/3, h 0/5 (rows uniform)
    _entry("bug_mask_assigned", "mask_replaces_scores", (4.0, 1.75, 3.0, 0.75), mask="assign_mask"),
    # scores *= mask: v 3/6 (the zeros), h 1/6 | T4 v 2/3 (all-zero scores: upper triangle 0.25), h 0/5
    _entry("bug_mask_multiplied", "mask_multiplied", (4.0, 1.0, 3.0, 0.5), mask="multiply"),
    # scores = scores + mask (rebinding): v 3/6, h 1/6 | T4 v 2/3 (nothing masked), h 0/5
    _entry("bug_mask_rebound", "mask_not_in_place", (4.0, 1.0, 3.0, 0.5), mask="rebind"),
    # works on a contiguous copy of a view: v 6/6, h 5/6 (fails only the view) | T4 8/8 (contiguous)
    _entry("bug_mask_contiguous_copy", "mask_lost_on_view", (4.0, 2.75, 3.0, 2.0), mask="contiguous_copy"),
    # reshape(-1) copies the grader's unevenly strided view: loses the view check like the one above
    _entry("bug_mask_reshape", "mask_lost_on_view", (4.0, 2.75, 3.0, 2.0), mask="reshape"),
    # ---------- TEST 3 bugs (student_softmax) ----------
    # axis 0: v 1/4 (a 4x4 of zeros is uniform either way), h 2/8 (1-D; mismatch) | T4 v 2/3, h 0/5
    _entry("bug_softmax_axis0", "softmax_wrong_axis", (4.0, 3.0, 0.75, 0.5), softmax="axis0"),
    # exp without max: v 4/4, h 5/8 (overflow at 1000, NaN for a fully masked row) | T4 v 3/3,
    # h 3/5 (fails the ±160 scores: exp(136) overflows float32; and the fully masked row)
    _entry("bug_softmax_no_max", "softmax_no_max_subtraction", (4.0, 3.0, 2.25, 1.5), softmax="no_max"),
    # never divides: v 0/4, h 1/8 | T4 v 2/3 (row 0 is [1, 0, 0, 0] but row 1 sums to 1.61), h 0/5
    _entry("bug_softmax_unnormalised", "softmax_not_normalised", (4.0, 3.0, 0.25, 0.5), softmax="unnormalised"),
    # out rebound = the stub: v 0/4, h 1/8 | T4 v 2/3, h 0/5
    _entry("bug_softmax_rebind_out", "softmax_out_rebound", (4.0, 3.0, 0.25, 0.5), softmax="rebind_out"),
    # global max: v 4/4, h 5/8 (rows far below the global max underflow: 1000/100 rows,
    # the 1000/0/-1000 rows, the masked rows) | T4 v 3/3, h 3/5 (±160 scores; the fully masked row);
    # the diagnosis' large-logit probe turns NaN the same way
    _entry("bug_softmax_global_max", "softmax_no_max_subtraction", (4.0, 3.0, 2.25, 1.5), softmax="global_max"),
    # axis=1 (2-D only): v 4/4, h 6/8 (3-D normalised over the wrong axis, 1-D raises) | T4 8/8
    _entry("bug_softmax_axis1", "softmax_wrong_axis", (4.0, 3.0, 2.5, 2.0), softmax="axis1"),
    # exp computed in inp: v 4/4, h 1/8 (every case checks inp is unchanged) | T4 8/8
    _entry("bug_softmax_in_place_inp", "softmax_mutates_input", (4.0, 3.0, 1.25, 2.0), softmax="in_place_inp"),
    # the given shape check deleted: v 4/4, h 7/8 (the mismatch raises instead of doing nothing) | T4 8/8
    _entry("bug_softmax_no_input_check", "softmax_exception", (4.0, 3.0, 2.75, 2.0), softmax="no_input_check"),
    # ---------- delegation to attnkit's reference: TEST 3 and TEST 4 score 0, values right (no finding) ----------
    *(_entry(f"bug_delegate_softmax{'' if how == 'delegate' else '_' + how}", None, (4.0, 3.0, 0.0, 0.0), softmax=how)
      for how in ("delegate", "thread", "raw_thread", "pool_made_earlier", "subprocess", "fork", "map_rows",
                  "found_by_inspect")),
)

BY_NAME = {m.name: m for m in MISTAKES}


@dataclass(frozen=True)
class Diagnosed:
    """A submission only the diagnosis is asked about: the findings it must get, exactly, and their words."""
    name: str
    code: tuple         # keys into SCORES, MASK, SOFTMAX (or WHOLE_CELLS)
    findings: tuple     # ((stage, bug), ...) in order; () = no finding
    phrases: tuple = ()  # words the first finding's message must contain


def _diagnosed(name, findings, phrases=(), scores="dot", mask="add", softmax="vectorised"):
    return Diagnosed(name, (scores, mask, softmax), tuple(findings), tuple(phrases))


def _unnamed(stage, phrase, **code):
    """A mistake no rule names: the generic finding of its stage, pointing into §4.10's table."""
    return _diagnosed(f"unnamed_{stage}_{code[stage]}", [(stage, f"{stage}_wrong_values")],
                      [phrase, "没有专门命名"], **code)


# The second table: what only the diagnosis tests use (rule details, generic findings, correct
# styles the diagnosis must not flag). The grading tables above hold what also earns points.
DIAGNOSED = (
    # ---------- correct, written differently: no finding ----------
    _diagnosed("ok_scores_matmul_int64", [], scores="matmul_int64"),
    _diagnosed("ok_scores_broadcast_f64", [], scores="broadcast_f64"),
    _diagnosed("ok_softmax_logsumexp_f64", [], softmax="logsumexp_f64"),
    _diagnosed("ok_softmax_row_views", [], softmax="row_views"),
    _diagnosed("ok_softmax_in_out", [], softmax="in_out"),
    _diagnosed("ok_all_alternatives", [], scores="loops", mask="loops", softmax="row_views"),
    # ---------- one named mistake each: rule details beyond the grading table ----------
    _diagnosed("scores_divided", [("scores", "scores_wrong_scale")], ["1/scale", "乘法写成了除法"], scores="divided"),
    _diagnosed("scores_stub", [("scores", "scores_out_not_written")], ["仍然全是 0", "TODO"], scores="stub"),
    _diagnosed("scores_no_return", [("scores", "scores_return_code")], ["返回了 None", "整数 0"], scores="no_return"),
    _diagnosed("scores_raises", [("scores", "scores_exception")], ["NotImplementedError: TODO: 点积"],
               scores="raises"),
    _diagnosed("mask_np_add_dropped", [("mask", "mask_not_applied")], ["完全没变", "np.add"], mask="np_add_dropped"),
    _diagnosed("mask_stub", [("mask", "mask_not_applied")], ["上三角没有变成 -1e9", "TODO"], mask="stub"),
    _diagnosed("mask_raises", [("mask", "mask_exception")], ["KeyError: 'mask'", "student_apply_mask"],
               mask="raises"),
    _diagnosed("mask_clobbers_mask", [("mask", "mask_mutates_input")], ["只读的输入 mask"], mask="clobbers_mask"),
    _diagnosed("softmax_min_shift", [("softmax", "softmax_no_max_subtraction")], ["溢出"], softmax="min_shift"),
    _diagnosed("softmax_whole", [("softmax", "softmax_whole_array")], ["所有元素", "keepdims"], softmax="whole"),
    _diagnosed("softmax_returns_new", [("softmax", "softmax_out_rebound")], ["返回了一个新数组"],
               softmax="returns_new"),
    _diagnosed("softmax_stub", [("softmax", "softmax_out_not_written")], ["结果全是 0", "没写进 out"], softmax="stub"),
    _diagnosed("softmax_raises", [("softmax", "softmax_exception")], ["ZeroDivisionError", "student_softmax"],
               softmax="raises"),
    # float64 in, float32 arithmetic: the hidden tests take points for it, so the diagnosis must say so
    _diagnosed("scores_in_float32", [("scores", "scores_lost_precision")], ["float64", "astype(np.float32)"],
               scores="in_float32"),
    _diagnosed("mask_in_float32", [("mask", "mask_lost_precision")], ["float64", "scores 却只精确到"],
               mask="in_float32"),
    _diagnosed("softmax_in_float32", [("softmax", "softmax_lost_precision")], ["float64", "保持输入的 dtype"],
               softmax="in_float32"),
    # the given input check deleted, or an exception on one probe only: named with the probe
    _diagnosed("scores_unchecked", [("scores", "scores_exception")], ["ValueError", "应返回 -1", "输入检查"],
               scores="unchecked"),
    _diagnosed("mask_unchecked_overlap", [("mask", "mask_wrong_values")], ["形状不一致时应什么都不做", "原样不动"],
               mask="unchecked_overlap"),
    _diagnosed("softmax_scalar_loops", [("softmax", "softmax_exception")], ["TypeError", "3-D 输入"],
               softmax="scalar_loops"),
    # ---------- mistakes no rule names: the generic finding of the first deviating stage ----------
    _unnamed("scores", "最大偏差 1", scores="off_by_one"),
    # a size hard-coded in the scores: all 22 of verify's lines pass (TEST 1's 3×3 checks (0,0) and (0,1) only)
    _unnamed("scores", "22 项全 PASS", scores="fixed_size"),
    _unnamed("mask", "对应排查表“上三角没有变成 -1e9”这一行", mask="subtracted"),
    _unnamed("mask", "最大偏差", mask="fixed_size"),
    _unnamed("softmax", "对应排查表“每行的和不是 1，也不是 0”这一行", softmax="squared"),
    _unnamed("softmax", "最大偏差", softmax="epsilon"),
    _unnamed("softmax", "3-D 输入", softmax="first_axis_only"),
    # ---------- several stages wrong: scores first, whatever the order of discovery ----------
    _diagnosed("scores_and_softmax", [("scores", "scores_missing_scale"), ("softmax", "softmax_wrong_axis")],
               scores="no_scale", softmax="axis0"),
    _diagnosed("stubs", [("scores", "scores_out_not_written"), ("mask", "mask_not_applied"),
                         ("softmax", "softmax_out_not_written")], scores="stub", mask="stub", softmax="stub"),
)
DIAGNOSED_BY_NAME = {d.name: d for d in DIAGNOSED}

# §4.10's troubleshooting table, row by row (the keys of attnkit.troubleshooting.TABLE_ROW): the mistakes whose verify
# transcript the row describes. tests/unit/test_chapter_text.py checks that the row lists exactly the FAIL
# lines each of them makes verify print, and that their diagnosis points at this row and no other.
TROUBLESHOOTING = {
    "scores_scale": ("bug_no_scale", "scores_divided"),
    "scores_unwritten": ("bug_rebind_out", "scores_stub", "bug_default_scale"),
    "scores_return": ("scores_no_return",),
    "mask": ("bug_mask_rebound", "bug_mask_multiplied", "mask_np_add_dropped", "mask_stub", "unnamed_mask_subtracted"),
    "softmax_zeros": ("bug_softmax_rebind_out", "softmax_stub", "softmax_returns_new"),
    "softmax_sum": ("bug_softmax_unnormalised", "unnamed_softmax_squared", "unnamed_softmax_epsilon"),
    "softmax_axis": ("bug_softmax_axis0",),
    "softmax_whole": ("softmax_whole",),
    "softmax_nan": ("softmax_min_shift",),
    "pipeline": ("unnamed_mask_fixed_size",),
    "verify_blind": ("bug_hardcoded", "unnamed_scores_fixed_size", "bug_q_qt", "bug_k_qt", "bug_scale_q_in_place", "bug_mask_assigned",
                     "bug_mask_contiguous_copy", "bug_softmax_no_max", "bug_softmax_global_max", "bug_softmax_axis1",
                     "bug_softmax_in_place_inp", "mask_clobbers_mask", "scores_in_float32", "softmax_in_float32"),
}

# The rows the class report flags "may be hard-coded" (coursekit.record.may_be_hard_coded), with the cells flagged:
# verify passed whole, every hidden check the release fails failed too, and the diagnosis named no mistake (a lookup
# table of verify's answers). Every other row is flagged nowhere: the other verify-blind mistakes above pass or fail
# hidden checks of their own, or the diagnosis names them (Q @ Q^T, the mask assigned …).
HARD_CODED = {"bug_hardcoded": ("test1_scores", "test4_end_to_end")}


def release() -> nbformat.NotebookNode:
    """The student notebook as released (``notebooks/``, kept fresh by tests/test_release_notebook.py)."""
    return nbformat.read(STUDENT, as_version=4)


def mistake_notebook(release_nb, mistake: Mistake):
    """``mistake`` typed into a copy of the released notebook."""
    return submission(release_nb, *mistake.code)


def functions(mistake, release_nb=None) -> tuple:
    """The three student functions as the notebook defines them: its set-up, added and solution cells, run here."""
    nb = mistake_notebook(release_nb or release(), mistake)
    cells = [nb.cells[index_of(nb, "setup_imports")]]
    added = ADDED_CELLS.get(mistake.code[2])
    if added:
        cells.append(nb.cells[index_of(nb, added[0]) - 1])  # the student's own cell sits right before it
    return defined(cells + [nb.cells[index_of(nb, role)] for role in ROLES])


def stub_functions(release_nb=None) -> tuple:
    """The release's own three functions, its stubs, as its notebook defines them (the untouched release)."""
    nb = release_nb or release()
    return defined([nb.cells[index_of(nb, grade_id)] for grade_id in ("setup_imports", *ROLES)])


def defined(cells: list) -> tuple:
    """The three student functions that running ``cells`` here defines."""
    namespace = {"__name__": "__main__"}
    # the set-up cell says hello, and an edition's chooses its language: this process keeps its own
    with contextlib.redirect_stdout(io.StringIO()), language.using(language.current()):
        for cell in cells:
            exec(compile(cell.source, f"<cell {cell.get('id', '')}>", "exec"), namespace)  # noqa: S102 -- test data
    return tuple(namespace[role] for role in ROLES)
