"""What each mistake the diagnosis can name is called where an instructor reads it (the class report).

A bug id (``softmax_wrong_axis``) is for tables and files; a person reads a short name in the course's language
(``softmax 沿错了轴``, "softmax along the wrong axis"), a message of attnkit's catalogue (``mistake.<bug>``; the
generic findings ``<stage>_<kind>`` are ``mistake.generic_<kind>``, naming the function). Keyed like
:mod:`attnkit.reteach`; ``tests/unit/test_reteach.py`` checks that every id attnkit can produce has a name.
"""
from .bugs import ROLE
from .diagnose import STAGES
from .language import DEFAULT, WORDS, marked

__all__ = ["NAMES", "mistake_name", "names"]

_NAMED = {
    "scores_lost_precision": marked("mistake.scores_lost_precision"),
    "scores_out_rebound": marked("mistake.scores_out_rebound"),
    "scores_out_not_written": marked("mistake.scores_out_not_written"),
    "scores_k_qt": marked("mistake.scores_k_qt"),
    "scores_q_qt": marked("mistake.scores_q_qt"),
    "scores_missing_scale": marked("mistake.scores_missing_scale"),
    "scores_wrong_scale": marked("mistake.scores_wrong_scale"),
    "mask_lost_precision": marked("mistake.mask_lost_precision"),
    "mask_not_in_place": marked("mistake.mask_not_in_place"),
    "mask_lost_on_view": marked("mistake.mask_lost_on_view"),
    "mask_not_applied": marked("mistake.mask_not_applied"),
    "mask_multiplied": marked("mistake.mask_multiplied"),
    "mask_replaces_scores": marked("mistake.mask_replaces_scores"),
    "softmax_lost_precision": marked("mistake.softmax_lost_precision"),
    "softmax_out_rebound": marked("mistake.softmax_out_rebound"),
    "softmax_out_not_written": marked("mistake.softmax_out_not_written"),
    "softmax_wrong_axis": marked("mistake.softmax_wrong_axis"),
    "softmax_whole_array": marked("mistake.softmax_whole_array"),
    "softmax_not_normalised": marked("mistake.softmax_not_normalised"),
    "softmax_no_max_subtraction": marked("mistake.softmax_no_max_subtraction"),
}
_GENERIC = {
    "wrong_values": marked("mistake.generic_wrong_values"),
    "exception": marked("mistake.generic_exception"),
    "return_code": marked("mistake.generic_return_code"),
    "mutates_input": marked("mistake.generic_mutates_input"),
    "pipeline_mismatch": marked("mistake.generic_pipeline_mismatch"),
}
NAMES = {**_NAMED, **{f"{stage}_{kind}": (msgid, stage) for stage in STAGES for kind, msgid in _GENERIC.items()}}


def mistake_name(bug: str, lang: str = DEFAULT) -> str:
    """The name of ``bug`` in ``lang``; an id this table does not know (a newer grader) is shown as it is."""
    entry = NAMES.get(bug)
    if entry is None:
        return bug
    msgid, stage = entry if isinstance(entry, tuple) else (entry, None)
    return WORDS.say(lang, msgid, role=ROLE.get(stage, ""))


def names(lang: str) -> dict:
    """``{bug id: its name}`` in ``lang``, every known id."""
    return {bug: mistake_name(bug, lang) for bug in NAMES}
