"""What to reteach for each mistake the diagnosis can name (instructor-facing, Chinese).

Keyed by bug id: the rule names of :data:`attnkit.bugs.RULES` plus the generic findings
:mod:`attnkit.diagnose` builds as ``<stage>_<kind>`` (:data:`GENERIC_KINDS`). The class report
(``make report``) shows the entry next to the mistake's count, through the chapter's plug-in
(:mod:`attnkit.course`); ``tests/unit/test_reteach.py`` checks that every id attnkit can produce has one.
"""
from .bugs import ROLE, RULES
from .diagnose import STAGES

__all__ = ["GENERIC_KINDS", "RETEACH", "known_bug_ids", "reteach"]

GENERIC_KINDS = ("wrong_values", "exception", "return_code", "mutates_input", "pipeline_mismatch")

_NAMED = {
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

_GENERIC = {
    "wrong_values": "{role} 的结果与参考不符且不属于已知错误：用手算的 3×3 例子逐元素对照，找出第一处不同。",
    "exception": "{role} 抛出异常：读懂 traceback、检查形状与下标；C 版的输入检查（非法输入返回 -1 或什么都不做）要保留。",
    "return_code": "返回状态码约定（C 风格）：{role} 成功返回 0、非法输入返回 -1，结果经 out 参数传出。",
    "mutates_input": "只读参数不能改：{role} 除了约定的输出数组，不要原地改写其他输入（需要时先 .copy()）。",
    "pipeline_mismatch": "三段串联：{role} 单独测试通过，串起来却偏离；讲清各段之间传递的数组（形状、dtype），"
                         "函数不能依赖上一次调用留下的状态、写死尺寸，或改写后一步还要读的数组。",
}

RETEACH = {**_NAMED, **{f"{stage}_{kind}": text.format(role=ROLE[stage])
                        for stage in STAGES for kind, text in _GENERIC.items()}}


def known_bug_ids() -> set:
    """Every bug id attnkit's diagnosis can report: the named rules and ``<stage>_<kind>`` generics."""
    named = {rule.bug for rules in RULES.values() for rule in rules}
    return named | {f"{stage}_{kind}" for stage in STAGES for kind in GENERIC_KINDS}


def reteach(bug: str) -> str:
    """The reteach note for ``bug``; an id this table does not know (a newer grader) says so."""
    return RETEACH.get(bug, f"（未知的错误编号 {bug}：请在 attnkit/reteach.py 中补上讲解要点）")
