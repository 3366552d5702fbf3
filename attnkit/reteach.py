"""What to reteach for each mistake the diagnosis can name (instructor-facing, in the course's language).

Keyed by language, then by bug id: the rule names of :data:`attnkit.bugs.RULES` plus the generic
findings :mod:`attnkit.diagnose` builds as ``<stage>_<kind>`` (:data:`GENERIC_KINDS`). The class
report (``make report``) shows the entry next to the mistake's count, in the course's language
(``c.CourseKit.language``), through the chapter's plug-in (:mod:`attnkit.course`);
``tests/unit/test_reteach.py`` checks that every id attnkit can produce has one in every language.
"""
from .bugs import ROLE, RULES
from .diagnose import STAGES
from .language import DEFAULT

__all__ = ["GENERIC_KINDS", "RETEACH", "UNKNOWN", "known_bug_ids", "reteach"]

GENERIC_KINDS = ("wrong_values", "exception", "return_code", "mutates_input", "pipeline_mismatch")

_NAMED_ZH = {
    "scores_lost_precision": "dtype 与精度：float64 输入全程保持 float64；np.empty_like / zeros_like 继承 dtype，"
                             "astype(np.float32) 会丢精度。",
    "scores_out_rebound": "Python 的名字绑定与 out 参数：out = ... 只改局部名字；out[...] = ... 才写进调用方的数组（对照 C 里的指针参数）。",
    "scores_out_not_written": "out 参数约定：函数把结果写进传入的数组、返回状态码；在黑板上跟踪一次 out[i, j] 的写入。",
    "scores_k_qt": "S = Q Kᵀ 的下标含义：行是 query i，列是 key j；用非方阵 Q、K（T ≠ S）演示转置为何出错。",
    "scores_q_qt": "Q 与 K 的角色：点积一边来自 query、一边来自 key；Q = K 的测试看不出来，换一组不同的 Q、K 演示。",
    "scores_missing_scale": "缩放点积：为什么除以 sqrt(d)（点积方差随 d 增长，softmax 变尖）；用 sharpness 演示无缩放的效果。",
    "scores_wrong_scale": "scale 是参数而不是函数内部重算的量：直接使用传入的 scale，乘而不是除，只乘一次。",
    "mask_lost_precision": "原地运算保持 dtype：scores += mask 不改变 scores 的精度，不要经过 float32 临时数组。",
    "mask_not_in_place": "原地修改与重新绑定：scores += mask 与 scores = scores + mask 的区别（id(scores) 演示）。",
    "mask_lost_on_view": "视图与副本：reshape(-1)、ravel()、ascontiguousarray 对非连续视图会复制；原地运算必须作用在传入的数组本身（演示 np.shares_memory）。",
    "mask_not_applied": "加性 mask 的作用：被遮位置加 -1e9 后 softmax 权重≈0；演示 np.add 的结果没有存回去。",
    "mask_multiplied": "加性 mask 与乘性 mask：本实验 0 = 保留、-1e9 = 屏蔽，只能相加；乘法会把保留位置清零。",
    "mask_replaces_scores": "mask 是加在分数上，不是替换分数：用非零 scores 的例子演示覆盖后信息全丢。",
    "softmax_lost_precision": "softmax 的 dtype：exp、max、sum 在 float64 上完成，临时数组跟随输入 dtype。",
    "softmax_out_rebound": "out 参数与名字绑定（同 scores_out_rebound）：out[...] = weights 才写回调用方。",
    "softmax_out_not_written": "softmax 的四步写完并写入 out：max → exp(x - max) → sum → 除以和。",
    "softmax_wrong_axis": "axis=-1 与 keepdims=True：每一行（一个 query 对所有 key）单独归一化，行和为 1。",
    "softmax_whole_array": "按行归一化而不是整个矩阵：sum(axis=-1, keepdims=True) 与广播。",
    "softmax_not_normalised": "softmax 的定义：exp 之后必须除以行和，权重才是概率分布（行和 = 1）。",
    "softmax_no_max_subtraction": "数值稳定的 softmax：先减去每行最大值，exp 不会溢出，结果不变（第 1 章的技巧）。",
}

_GENERIC_ZH = {
    "wrong_values": "{role} 的结果与参考不符且不属于已知错误：用手算的 3×3 例子逐元素对照，找出第一处不同。",
    "exception": "{role} 抛出异常：读懂 traceback、检查形状与下标；C 版的输入检查（非法输入返回 -1 或什么都不做）要保留。",
    "return_code": "返回状态码约定（C 风格）：{role} 成功返回 0、非法输入返回 -1，结果经 out 参数传出。",
    "mutates_input": "只读参数不能改：{role} 除了约定的输出数组，不要原地改写其他输入（需要时先 .copy()）。",
    "pipeline_mismatch": "三段串联：{role} 单独测试通过，串起来却偏离；讲清各段之间传递的数组（形状、dtype），"
                         "函数不能依赖上一次调用留下的状态、写死尺寸，或改写后一步还要读的数组。",
}

_NAMED_EN = {
    "scores_lost_precision": "dtype and precision: float64 input stays float64 all the way; np.empty_like / zeros_like "
                             "keep the dtype, astype(np.float32) throws precision away.",
    "scores_out_rebound": "Python names and the out parameter: out = ... only rebinds a local name; out[...] = ... "
                          "writes into the caller's array (compare a pointer parameter in C).",
    "scores_out_not_written": "the out-parameter contract: the function writes its result into the array it is given "
                              "and returns a status code; trace one write of out[i, j] on the board.",
    "scores_k_qt": "what the indices of S = Q Kᵀ mean: rows are queries i, columns keys j; show with a non-square Q "
                   "and K (T ≠ S) why the transpose is wrong.",
    "scores_q_qt": "the roles of Q and K: one side of each dot product is a query, the other a key; tests with Q = K "
                   "cannot tell, so show it with a different Q and K.",
    "scores_missing_scale": "scaled dot-product attention: why divide by sqrt(d) (the dot product's variance grows "
                            "with d and softmax turns sharp); show the unscaled case with the sharpness explorer.",
    "scores_wrong_scale": "scale is a parameter, not something the function recomputes: use the scale passed in, "
                          "multiply rather than divide, and only once.",
    "mask_lost_precision": "in-place arithmetic keeps the dtype: scores += mask leaves the scores' precision alone; "
                           "no float32 temporary array in between.",
    "mask_not_in_place": "changing in place versus rebinding: scores += mask against scores = scores + mask (show "
                         "id(scores)).",
    "mask_lost_on_view": "views and copies: reshape(-1), ravel() and ascontiguousarray copy a non-contiguous view; "
                         "in-place arithmetic must act on the array passed in (show np.shares_memory).",
    "mask_not_applied": "what an additive mask does: a blocked cell plus -1e9 gets a softmax weight of ≈ 0; show "
                        "that the result of np.add was never stored back.",
    "mask_multiplied": "additive versus multiplicative masks: in this lab 0 keeps and -1e9 blocks, so they can only "
                       "be added; multiplying zeroes the cells that should be kept.",
    "mask_replaces_scores": "the mask is added to the scores, it does not replace them: show with non-zero scores "
                            "that overwriting loses everything.",
    "softmax_lost_precision": "softmax's dtype: exp, max and sum run in float64 for float64 input; temporary arrays "
                              "follow the input's dtype.",
    "softmax_out_rebound": "the out parameter and name binding (as scores_out_rebound): only out[...] = weights "
                           "reaches the caller.",
    "softmax_out_not_written": "the four steps of softmax, written into out: max → exp(x - max) → sum → divide by "
                               "the sum.",
    "softmax_wrong_axis": "axis=-1 and keepdims=True: each row (one query against every key) is normalised on its "
                          "own and sums to 1.",
    "softmax_whole_array": "normalise by row, not the whole matrix: sum(axis=-1, keepdims=True) and broadcasting.",
    "softmax_not_normalised": "the definition of softmax: after exp, divide by the row's sum so that the weights are "
                              "a probability distribution (each row sums to 1).",
    "softmax_no_max_subtraction": "the numerically stable softmax: subtract each row's maximum first, so that exp "
                                  "cannot overflow and the result is unchanged (the trick of chapter 1).",
}

_GENERIC_EN = {
    "wrong_values": "{role} gives values unlike the reference's, and no known mistake fits: compare a 3×3 example "
                    "worked by hand element by element and find the first difference.",
    "exception": "{role} raises: read the traceback, check shapes and indices; keep the C version's input check "
                 "(invalid input returns -1 or does nothing).",
    "return_code": "the C-style status code: {role} returns 0 on success and -1 for invalid input, its result goes "
                   "out through the out parameter.",
    "mutates_input": "read-only parameters stay unchanged: {role} writes only the output array it was given (copy "
                     "an input first when it must change it).",
    "pipeline_mismatch": "the three stages chained: {role} passes on its own but goes wrong in the chain; go through "
                         "the arrays passed between the stages (shapes, dtypes): a function may not depend on state "
                         "left by an earlier call, hard-code sizes, or change an array a later step still reads.",
}


def _table(named: dict, generic: dict) -> dict:
    return {**named, **{f"{stage}_{kind}": text.format(role=ROLE[stage])
                        for stage in STAGES for kind, text in generic.items()}}


RETEACH = {"zh": _table(_NAMED_ZH, _GENERIC_ZH), "en": _table(_NAMED_EN, _GENERIC_EN)}
UNKNOWN = {"zh": "（未知的错误编号 {bug}：请在 attnkit/reteach.py 中补上讲解要点）",
           "en": "(unknown mistake id {bug}: add what to reteach to attnkit/reteach.py)"}


def known_bug_ids() -> set:
    """Every bug id attnkit's diagnosis can report: the named rules and ``<stage>_<kind>`` generics."""
    named = {rule.bug for rules in RULES.values() for rule in rules}
    return named | {f"{stage}_{kind}" for stage in STAGES for kind in GENERIC_KINDS}


def reteach(bug: str, lang: str = DEFAULT) -> str:
    """The reteach note for ``bug`` in ``lang``; an id this table does not know (a newer grader) says so."""
    return RETEACH[lang].get(bug) or UNKNOWN[lang].format(bug=bug)
