"""The practice exercises' table: the master's solution and wrong versions of each exercise's function.

Each :class:`PracticeRow` is one exercise's function as a student could write it, with their own three lab functions
(the mistake table's right ones, :func:`support.mistakes.functions` of ``ok_dot``), and the outcome the grader must
record: ``PASSED`` (every hidden check), ``NOT_PASSED`` (some check fails) or ``UNTRIED`` (still the release's stub:
no check at all). The master's solution is read from the master, so the table holds it to what students are taught.
tests/unit/test_grader_practice.py grades every row through the grader (grader.practice) and the chapter's own check
(attnkit.exercises). A new wrong version is one new row.
"""
from dataclasses import dataclass

from support.editions import cell_source, master

PASSED, NOT_PASSED, UNTRIED = "passed", "not passed", "untried"


@dataclass(frozen=True)
class PracticeRow:
    grade_id: str   # the exercise's test cell
    name: str
    source: str     # the function, as the student's solution cell defines it
    outcome: str
    why: str = ""


def _master(cell_id: str) -> str:
    return cell_source(master("zh"), cell_id)


def _stub(signature: str) -> str:
    return f"def {signature}:\n    # 在这里写你的实现\n    pass\n"


_ATTEND = '''
    def attend(rows, mask=mask, scale=None):
        scores = np.zeros((len(rows), len(rows)), rows.dtype)
        student_attention_scores(rows, rows, 1 / np.sqrt(rows.shape[1]) if scale is None else scale, scores)
        student_apply_mask(scores, mask)
        weights = np.zeros_like(scores)
        student_softmax(weights, scores)
        return weights @ rows
'''

ORDER = [
    PracticeRow("ex1_order", "master", _master("ex1-solution"), PASSED),
    PracticeRow("ex1_order", "stub", _stub("student_order_gap(x, perm, mask)"), UNTRIED),
    PracticeRow("ex1_order", "not_permuted_back", "def student_order_gap(x, perm, mask):" + _ATTEND +
                "    return float(np.abs(attend(x[perm]) - attend(x)).max())\n", NOT_PASSED,
                "compares position i of one output with position i of the other: not 0 even without a mask"),
    PracticeRow("ex1_order", "mask_permuted_too", "def student_order_gap(x, perm, mask):" + _ATTEND +
                "    return float(np.abs(attend(x[perm], mask[perm][:, perm]) - attend(x)[perm]).max())\n", NOT_PASSED,
                "shuffles the mask with the content: equivariant again, the gap is 0 under the causal mask"),
    PracticeRow("ex1_order", "mask_never_applied", "def student_order_gap(x, perm, mask):" +
                _ATTEND.replace("        student_apply_mask(scores, mask)\n", "") +
                "    return float(np.abs(attend(x[perm]) - attend(x)[perm]).max())\n", NOT_PASSED,
                "no mask at all: the gap is 0 where the causal mask makes it large"),
    PracticeRow("ex1_order", "scale_one", "def student_order_gap(x, perm, mask):" + _ATTEND +
                "    return float(np.abs(attend(x[perm], scale=1.0) - attend(x, scale=1.0)[perm]).max())\n", NOT_PASSED,
                "scale 1 instead of 1/sqrt(C): another gap under a mask"),
    PracticeRow("ex1_order", "returns_the_array", "def student_order_gap(x, perm, mask):" + _ATTEND +
                "    return np.abs(attend(x[perm]) - attend(x)[perm])\n", NOT_PASSED, "an array, not the largest gap"),
]

_LAYER = '''def student_attention_layer(x, context, W_q, W_k, W_v, W_o, num_heads, mask):
    q, k, v = x @ W_q, {keys} @ W_k, {keys} @ W_v
    head_dim = W_q.shape[1] // num_heads
    heads = []
    for h in range(num_heads):
        cols = slice(h * head_dim, (h + 1) * head_dim)
        scores = np.zeros((len(x), len(k)), x.dtype)
        student_attention_scores(q[:, cols], k[:, cols], {scale}, scores)
        student_apply_mask(scores, mask)
        weights = np.zeros_like(scores)
        student_softmax(weights, scores)
        heads.append(weights @ v[:, {values}])
    return {joined}
'''


def _layer(keys="context", scale="1 / np.sqrt(head_dim)", values="cols", joined="np.concatenate(heads, axis=1) @ W_o"):
    return _LAYER.format(keys=keys, scale=scale, values=values, joined=joined)


LAYER = [
    PracticeRow("ex2_layer", "master", _master("ex2-solution"), PASSED),
    PracticeRow("ex2_layer", "stub", _stub("student_attention_layer(x, context, W_q, W_k, W_v, W_o, num_heads, mask)"),
                UNTRIED),
    PracticeRow("ex2_layer", "no_output_projection", _layer(joined="np.concatenate(heads, axis=1)"), NOT_PASSED,
                "the heads joined but never multiplied by W_o"),
    PracticeRow("ex2_layer", "scale_hidden_dim", _layer(scale="1 / np.sqrt(W_q.shape[1])"), NOT_PASSED,
                "1/sqrt(hidden_dim): each head scales by its own head_dim"),
    PracticeRow("ex2_layer", "keys_from_x", _layer(keys="x"), NOT_PASSED,
                "keys and values from x: cross-attention takes them from context (the padded case fails)"),
    PracticeRow("ex2_layer", "first_head_values", _layer(values=":head_dim"), NOT_PASSED,
                "every head reads the first head's values"),
]

_ALL = '''def student_all_heads(x, W_q, W_k, W_v, W_o, num_heads, mask):
    seq_len, hidden_dim = x.shape
    head_dim = hidden_dim // num_heads

    def split(w):
        return {split}

    q, k, v = split(W_q), split(W_k), split(W_v)
    scores = np.zeros((num_heads, seq_len, seq_len), x.dtype)
    for h in range(num_heads):
        student_attention_scores(q[h], k[h], {scale}, scores[h])
        {mask_first}
    weights = np.zeros_like(scores)
    student_softmax(weights, scores)
    {mask_after}
    heads = weights @ v
    return {merge} @ W_o
'''


def _all(split="(x @ w).reshape(seq_len, num_heads, head_dim).transpose(1, 0, 2)", scale="1 / np.sqrt(head_dim)",
         mask_first="student_apply_mask(scores[h], mask)", mask_after="",
         merge="heads.transpose(1, 0, 2).reshape(seq_len, hidden_dim)"):
    return _ALL.format(split=split, scale=scale, mask_first=mask_first or "pass", mask_after=mask_after, merge=merge)


ALL_HEADS = [
    PracticeRow("ex3_all_heads", "master", _master("ex3-solution"), PASSED),
    PracticeRow("ex3_all_heads", "stub", _stub("student_all_heads(x, W_q, W_k, W_v, W_o, num_heads, mask)"), UNTRIED),
    PracticeRow("ex3_all_heads", "split_without_transpose", _all(split="(x @ w).reshape(num_heads, seq_len, head_dim)"),
                NOT_PASSED, "reshaping [T, C] straight to [H, T, D] mixes positions into heads"),
    PracticeRow("ex3_all_heads", "merge_without_transpose", _all(merge="heads.reshape(seq_len, hidden_dim)"), NOT_PASSED,
                "reshaping [H, T, D] straight to [T, C] joins positions, not heads"),
    PracticeRow("ex3_all_heads", "scale_hidden_dim", _all(scale="1 / np.sqrt(hidden_dim)"), NOT_PASSED,
                "1/sqrt(hidden_dim) instead of each head's 1/sqrt(head_dim)"),
    PracticeRow("ex3_all_heads", "mask_after_softmax", _all(mask_first="", mask_after="weights[:, mask < -1e8] = 0.0"),
                NOT_PASSED, "the future zeroed after softmax, rows no longer summing to 1"),
]

ROWS = ORDER + LAYER + ALL_HEADS
