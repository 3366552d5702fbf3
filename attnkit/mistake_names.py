"""What each mistake the diagnosis can name is called where an instructor reads it (the class report), by language.

A bug id (``softmax_wrong_axis``) is for tables and files; a person reads a short name in the course's language
(``softmax 沿错了轴``, "softmax along the wrong axis"). Keyed like :mod:`attnkit.reteach`: the named rules of
:data:`attnkit.bugs.RULES`, and ``<stage>_<kind>`` for the generic findings, whose names say the function.
``tests/unit/test_reteach.py`` checks that every id attnkit can produce has a name in every language.
"""
from .bugs import ROLE
from .diagnose import STAGES
from .language import DEFAULT

__all__ = ["NAMES", "mistake_name"]

_NAMED = {
    "zh": {
        "scores_lost_precision": "分数丢了 float64 的精度", "scores_out_rebound": "分数写进了新数组（out 被重新绑定）",
        "scores_out_not_written": "分数没有写进 out", "scores_k_qt": "算成了 K·Qᵀ（转置了）", "scores_q_qt": "算成了 Q·Qᵀ",
        "scores_missing_scale": "漏乘了 scale", "scores_wrong_scale": "scale 用错了",
        "mask_lost_precision": "加 mask 时丢了 float64 的精度", "mask_not_in_place": "mask 没有原地加到 scores 上",
        "mask_lost_on_view": "mask 加在了副本上（传入的视图没变）", "mask_not_applied": "mask 没有起作用",
        "mask_multiplied": "mask 乘了上去而不是加", "mask_replaces_scores": "mask 替换了分数",
        "softmax_lost_precision": "softmax 丢了 float64 的精度", "softmax_out_rebound": "softmax 写进了新数组（out 被重新绑定）",
        "softmax_out_not_written": "softmax 没有写进 out", "softmax_wrong_axis": "softmax 沿错了轴",
        "softmax_whole_array": "softmax 对整个数组归一化", "softmax_not_normalised": "softmax 没有除以行和",
        "softmax_no_max_subtraction": "softmax 没有先减去每行最大值",
    },
    "en": {
        "scores_lost_precision": "scores lose float64 precision", "scores_out_rebound": "scores written into a new array "
        "(out rebound)", "scores_out_not_written": "scores never written into out", "scores_k_qt": "K·Qᵀ (transposed)",
        "scores_q_qt": "Q·Qᵀ instead of Q·Kᵀ", "scores_missing_scale": "scale left out",
        "scores_wrong_scale": "the wrong scale", "mask_lost_precision": "the mask loses float64 precision",
        "mask_not_in_place": "the mask not added in place", "mask_lost_on_view": "the mask added to a copy (the view "
        "passed in unchanged)", "mask_not_applied": "the mask has no effect", "mask_multiplied": "the mask multiplied "
        "instead of added", "mask_replaces_scores": "the mask replaces the scores",
        "softmax_lost_precision": "softmax loses float64 precision", "softmax_out_rebound": "softmax written into a new "
        "array (out rebound)", "softmax_out_not_written": "softmax never written into out",
        "softmax_wrong_axis": "softmax along the wrong axis", "softmax_whole_array": "softmax over the whole array",
        "softmax_not_normalised": "softmax not divided by its row sums",
        "softmax_no_max_subtraction": "softmax without each row's maximum subtracted",
    },
}
_GENERIC = {
    "zh": {"wrong_values": "{role} 结果不对（没有专门命名的错误）", "exception": "{role} 抛出异常",
           "return_code": "{role} 的返回值不对", "mutates_input": "{role} 改了只读的输入",
           "pipeline_mismatch": "{role} 单独对、串起来不对"},
    "en": {"wrong_values": "{role} gives wrong values (no named mistake)", "exception": "{role} raises an exception",
           "return_code": "{role} returns the wrong code", "mutates_input": "{role} changes a read-only input",
           "pipeline_mismatch": "{role} right alone, wrong in the chain"},
}
NAMES = {lang: {**_NAMED[lang], **{f"{stage}_{kind}": text.format(role=ROLE[stage])
                                   for stage in STAGES for kind, text in _GENERIC[lang].items()}} for lang in _NAMED}


def mistake_name(bug: str, lang: str = DEFAULT) -> str:
    """The name of ``bug`` in ``lang``; an id this table does not know (a newer grader) is shown as it is."""
    return NAMES.get(lang, NAMES[DEFAULT]).get(bug, bug)
