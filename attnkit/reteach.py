"""What to reteach for each mistake the diagnosis can name (instructor-facing, in the course's language).

By bug id: the rule names of :data:`attnkit.bugs.RULES` plus the generic findings :mod:`attnkit.diagnose` builds as
``<stage>_<kind>`` (:data:`GENERIC_KINDS`), each a message of attnkit's catalogue (``reteach.<bug>``; the generic ones
``reteach.generic_<kind>``, naming the stage's function). The class report (``make report``) shows the entry next to
the mistake's count, in the course's language (``c.CourseKit.language``), through the chapter's plug-in
(:mod:`attnkit.course`); ``tests/unit/test_reteach.py`` checks that every id attnkit can produce has one.
"""
from .bugs import ROLE, RULES
from .diagnose import STAGES
from .language import DEFAULT, WORDS, marked

__all__ = ["GENERIC_KINDS", "RETEACH", "known_bug_ids", "reteach", "table"]

_NAMED = {
    "scores_lost_precision": marked("reteach.scores_lost_precision"),
    "scores_out_rebound": marked("reteach.scores_out_rebound"),
    "scores_out_not_written": marked("reteach.scores_out_not_written"),
    "scores_k_qt": marked("reteach.scores_k_qt"),
    "scores_q_qt": marked("reteach.scores_q_qt"),
    "scores_missing_scale": marked("reteach.scores_missing_scale"),
    "scores_wrong_scale": marked("reteach.scores_wrong_scale"),
    "mask_lost_precision": marked("reteach.mask_lost_precision"),
    "mask_not_in_place": marked("reteach.mask_not_in_place"),
    "mask_lost_on_view": marked("reteach.mask_lost_on_view"),
    "mask_not_applied": marked("reteach.mask_not_applied"),
    "mask_multiplied": marked("reteach.mask_multiplied"),
    "mask_replaces_scores": marked("reteach.mask_replaces_scores"),
    "softmax_lost_precision": marked("reteach.softmax_lost_precision"),
    "softmax_out_rebound": marked("reteach.softmax_out_rebound"),
    "softmax_out_not_written": marked("reteach.softmax_out_not_written"),
    "softmax_wrong_axis": marked("reteach.softmax_wrong_axis"),
    "softmax_whole_array": marked("reteach.softmax_whole_array"),
    "softmax_not_normalised": marked("reteach.softmax_not_normalised"),
    "softmax_no_max_subtraction": marked("reteach.softmax_no_max_subtraction"),
}
_GENERIC = {
    "wrong_values": marked("reteach.generic_wrong_values"),
    "exception": marked("reteach.generic_exception"),
    "return_code": marked("reteach.generic_return_code"),
    "mutates_input": marked("reteach.generic_mutates_input"),
    "pipeline_mismatch": marked("reteach.generic_pipeline_mismatch"),
}
GENERIC_KINDS = tuple(_GENERIC)
RETEACH = {**_NAMED, **{f"{stage}_{kind}": (msgid, stage) for stage in STAGES for kind, msgid in _GENERIC.items()}}


def known_bug_ids() -> set:
    """Every bug id attnkit's diagnosis can report: the named rules and ``<stage>_<kind>`` generics."""
    named = {rule.bug for rules in RULES.values() for rule in rules}
    return named | {f"{stage}_{kind}" for stage in STAGES for kind in GENERIC_KINDS}


def reteach(bug: str, lang: str = DEFAULT) -> str:
    """The reteach note for ``bug`` in ``lang``; an id this table does not know (a newer grader) says so."""
    entry = RETEACH.get(bug)
    if entry is None:
        return WORDS.say(lang, "reteach.unknown", bug=bug)
    msgid, stage = entry if isinstance(entry, tuple) else (entry, None)
    return WORDS.say(lang, msgid, role=ROLE.get(stage, ""))


def table(lang: str) -> dict:
    """``{bug id: its note}`` in ``lang``, every known id."""
    return {bug: reteach(bug, lang) for bug in RETEACH}
