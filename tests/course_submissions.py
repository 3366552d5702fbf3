"""Student implementations of the three lab functions, correct and buggy, to submit to the grader.

Each entry is the code a student types where the release says ``# 在这里写你的实现``: the given
input checks above it (and ``return 0`` below the scores stub) stay, as in the lab. Keys name
the implementation; ``submission`` puts one of each into a released notebook.
Used by test_course_matrix.py, test_course_workflow.py, test_course_robustness.py and
benchmarks/bench_autograde.py.
"""
import copy
import textwrap

import nbformat

from course_tools import fill_solution, index_of

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
}

# Code a student may put into cells of their own, before the given grade_id.
ADDED_CELLS = {
    "helper": ("student_softmax", "def stable_exp(x):\n    return np.exp(x - x.max(axis=-1, keepdims=True))\n"),
}

# A student who deleted the given input check of student_softmax (whole cell rewritten).
SOFTMAX_WITHOUT_CHECK = """import numpy as np


def student_softmax(out, inp):
    e = np.exp(inp - inp.max(axis=-1, keepdims=True))
    out[...] = e / e.sum(axis=-1, keepdims=True)
"""


def submission(release, scores="dot", mask="add", softmax="vectorised"):
    """A copy of the released notebook with the three implementations typed in (cell metadata kept)."""
    nb = copy.deepcopy(release)
    fill_solution(nb, "student_attention_scores", textwrap.dedent(SCORES[scores]).strip("\n"))
    fill_solution(nb, "student_apply_mask", textwrap.dedent(MASK[mask]).strip("\n"))
    if softmax == "no_input_check":
        nb.cells[index_of(nb, "student_softmax")].source = SOFTMAX_WITHOUT_CHECK
    else:
        fill_solution(nb, "student_softmax", textwrap.dedent(SOFTMAX[softmax]).strip("\n"))
    if softmax in ADDED_CELLS:
        before, source = ADDED_CELLS[softmax]
        nb.cells.insert(index_of(nb, before), nbformat.v4.new_code_cell(source))
    return nb
