"""Does the diagnosis name the first deviating stage and the mistake, and stay quiet on correct code?

Every student implementation below is a small, plausible notebook answer with the lab's
input checks kept (as in the starting ``student.c``), so that each has exactly one mistake.
"""
import math
import sys

import numpy as np
import pytest

from attnkit import lab
from attnkit.diagnose import STAGES, Finding, diagnose, first_deviation, format_findings
from attnkit.probes import PROBES
from support.mistakes import MISTAKES, functions, release

RELEASE = release()

REF_SCORES, REF_MASK, REF_SOFTMAX = lab.REFERENCE
ok_scores, ok_mask, ok_softmax = lab.scores_inputs_ok, lab.mask_inputs_ok, lab.softmax_inputs_ok


# --- correct but different ------------------------------------------------------------

def scores_einsum(Q, K, scale, out):
    if not ok_scores(Q, K, out):
        return -1
    out[...] = scale * np.einsum("td,sd->ts", Q, K)
    return 0


def scores_loops(Q, K, scale, out):
    if not ok_scores(Q, K, out):
        return -1
    for i in range(Q.shape[0]):
        for j in range(K.shape[0]):
            acc = 0.0
            for d in range(Q.shape[1]):
                acc += Q[i, d] * K[j, d]
            out[i, j] = acc * scale
    return 0


def scores_matmul_out(Q, K, scale, out):
    if not ok_scores(Q, K, out):
        return -1
    np.matmul(Q, K.T, out=out)
    out *= scale
    return np.int64(0)


def scores_broadcast_f64(Q, K, scale, out):
    if not ok_scores(Q, K, out):
        return -1
    products = Q.astype(np.float64)[:, None, :] * K.astype(np.float64)[None, :, :]  # (T, S, D)
    out[:] = products.sum(axis=-1) * scale
    return 0


def mask_loops(scores, mask):
    if not ok_mask(scores, mask):
        return
    for i in range(scores.shape[0]):
        for j in range(scores.shape[1]):
            scores[i, j] += mask[i, j]


def mask_np_add_out(scores, mask):
    if ok_mask(scores, mask):
        np.add(scores, mask, out=scores)


def mask_slice_assign(scores, mask):
    if ok_mask(scores, mask):
        scores[...] = scores + mask


def softmax_logsumexp_f64(out, inp):
    if not ok_softmax(out, inp):
        return
    inp = inp.astype(np.float64)  # in float32, -1e9 + log(4) rounds back to -1e9: a masked row would sum to 4
    top = inp.max(axis=-1, keepdims=True)
    lse = top + np.log(np.exp(inp - top).sum(axis=-1, keepdims=True))
    out[...] = np.exp(inp - lse)


def softmax_rows_loop(out, inp):
    if not ok_softmax(out, inp):
        return
    rows, flat = inp.reshape(-1, inp.shape[-1]), out.reshape(-1, out.shape[-1])  # views of (rows, S)
    for r in range(rows.shape[0]):
        e = np.exp(rows[r] - rows[r].max())
        flat[r] = e / e.sum()


def softmax_in_out(out, inp):
    if not ok_softmax(out, inp):
        return
    out[...] = inp
    out -= out.max(axis=-1, keepdims=True)
    np.exp(out, out=out)
    out /= out.sum(axis=-1, keepdims=True)


CORRECT = [
    ("reference", lab.REFERENCE),
    ("scores einsum", (scores_einsum, REF_MASK, REF_SOFTMAX)),
    ("scores explicit loops", (scores_loops, REF_MASK, REF_SOFTMAX)),
    ("scores np.matmul(out=), numpy int 0", (scores_matmul_out, REF_MASK, REF_SOFTMAX)),
    ("scores float64 broadcasting", (scores_broadcast_f64, REF_MASK, REF_SOFTMAX)),
    ("mask loops", (REF_SCORES, mask_loops, REF_SOFTMAX)),
    ("mask np.add(out=)", (REF_SCORES, mask_np_add_out, REF_SOFTMAX)),
    ("mask slice assignment", (REF_SCORES, mask_slice_assign, REF_SOFTMAX)),
    ("softmax logsumexp in float64", (REF_SCORES, REF_MASK, softmax_logsumexp_f64)),
    ("softmax row loop through views", (REF_SCORES, REF_MASK, softmax_rows_loop)),
    ("softmax in-place ops on out", (REF_SCORES, REF_MASK, softmax_in_out)),
    ("all three alternatives", (scores_loops, mask_loops, softmax_rows_loop)),
]


@pytest.mark.parametrize("fns", [fns for _, fns in CORRECT], ids=[name for name, _ in CORRECT])
def test_correct_implementations_get_no_finding(fns):
    """Does a correct implementation, however written, get an empty list?"""
    assert diagnose(*fns) == []


# --- the mistake table (tests/mistakes.py): each buggy entry is named as the table says -----

# Words the message must contain, for the table's entries whose rule words them specially.
PHRASES = {
    "bug_no_scale": ["Q @ K^T", "scale = 0.3", "对角项不对"],
    "bug_default_scale": ["0.5 × (Q @ K^T)", "1/sqrt(head_dim)", "传入的 scale"],
    "bug_k_qt": ["K @ Q^T", "转置", "K[j, d]"],
    "bug_q_qt": ["Q @ Q^T", "K 根本没有参与"],
    "bug_rebind_out": ["重新指向", "out[...] ="],
    "bug_scale_q_in_place": ["只读的输入 Q 或 K"],
    "bug_mask_rebound": ["重新指向", "原地修改", "上三角没有被压到极小"],
    "bug_mask_multiplied": ["乘", "加性"],
    "bug_mask_assigned": ["覆盖", "scores 全是 0"],
    "bug_softmax_axis0": ["第 0 维", "axis=-1"],
    "bug_softmax_no_max": ["NaN/inf", "最大值"],
    "bug_softmax_unnormalised": ["没有除以行和", "每行和不是 1"],
    "bug_softmax_rebind_out": ["全部是 0", "重新指向"],
    "bug_softmax_in_place_inp": ["只读的输入 inp"],
}


@pytest.mark.parametrize("mistake", MISTAKES, ids=[m.name for m in MISTAKES])
def test_does_the_diagnosis_name_each_mistake_of_the_table(mistake):
    """First finding = the table's bug id, in its stage, with the right words; a correct entry gets none?"""
    findings = diagnose(*functions(mistake, RELEASE))
    assert (findings[0].bug if findings else None) == mistake.diagnosis
    if findings:
        assert mistake.diagnosis.startswith(findings[0].stage + "_")
        for phrase in PHRASES.get(mistake.name, []):
            assert phrase in findings[0].message, phrase


# --- one named mistake each, beyond the table: rules and messages in detail -----------------------------------------------------------





def scores_divided(Q, K, scale, out):
    if not ok_scores(Q, K, out):
        return -1
    out[...] = Q @ K.T / scale
    return 0








def scores_no_return(Q, K, scale, out):
    if not ok_scores(Q, K, out):
        return -1
    out[...] = scale * (Q @ K.T)


def scores_raises(Q, K, scale, out):
    raise NotImplementedError("TODO: 点积")






def mask_np_add_dropped(scores, mask):
    if ok_mask(scores, mask):
        np.add(scores, mask)






def mask_raises(scores, mask):
    raise KeyError("mask")


def mask_clobbers_mask(scores, mask):
    if ok_mask(scores, mask):
        mask += scores
        scores[...] = mask






def softmax_min_shift(out, inp):
    if ok_softmax(out, inp):
        e = np.exp(inp - inp.min(axis=-1, keepdims=True))
        out[...] = e / e.sum(axis=-1, keepdims=True)




def softmax_whole(out, inp):
    if ok_softmax(out, inp):
        e = np.exp(inp - inp.max())
        out[...] = e / e.sum()




def softmax_returns_new(out, inp):
    if ok_softmax(out, inp):
        e = np.exp(inp - inp.max(axis=-1, keepdims=True))
        return e / e.sum(axis=-1, keepdims=True)




def softmax_raises(out, inp):
    raise ZeroDivisionError("division by zero")


def scores_in_float32(Q, K, scale, out):
    if not ok_scores(Q, K, out):
        return -1
    out[...] = np.float32(scale) * (Q.astype(np.float32) @ K.astype(np.float32).T)
    return 0


def mask_in_float32(scores, mask):
    if not ok_mask(scores, mask):
        return
    scores[...] = scores.astype(np.float32) + mask.astype(np.float32)


def softmax_in_float32(out, inp):
    if not ok_softmax(out, inp):
        return
    x = inp.astype(np.float32)
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    out[...] = e / e.sum(axis=-1, keepdims=True)


# Single mistakes the engine tests below combine (the table holds them as submissions too).

def scores_no_scale(Q, K, scale, out):
    if not ok_scores(Q, K, out):
        return -1
    out[...] = Q @ K.T
    return 0


def mask_multiplies(scores, mask):
    if ok_mask(scores, mask):
        scores *= mask


def softmax_columns(out, inp):
    if ok_softmax(out, inp):
        e = np.exp(inp - inp.max(axis=0, keepdims=True))
        out[...] = e / e.sum(axis=0, keepdims=True)


def softmax_overflows(out, inp):
    if ok_softmax(out, inp):
        e = np.exp(inp)
        out[...] = e / e.sum(axis=-1, keepdims=True)


NAMED = [
    # (student functions, stage, bug, phrases the message must contain): rule details beyond the table
    ((scores_divided, REF_MASK, REF_SOFTMAX), "scores", "scores_wrong_scale", ["1/scale", "乘法写成了除法"]),
    ((lab.stub_attention_scores, REF_MASK, REF_SOFTMAX), "scores", "scores_out_not_written", ["仍然全是 0", "TODO"]),
    ((scores_no_return, REF_MASK, REF_SOFTMAX), "scores", "scores_return_code", ["返回了 None", "整数 0"]),
    ((scores_raises, REF_MASK, REF_SOFTMAX), "scores", "scores_exception", ["NotImplementedError: TODO: 点积"]),
    ((REF_SCORES, mask_np_add_dropped, REF_SOFTMAX), "mask", "mask_not_applied", ["完全没变", "np.add"]),
    ((REF_SCORES, lab.stub_apply_mask, REF_SOFTMAX), "mask", "mask_not_applied", ["mask 没有真正加进 scores"]),
    ((REF_SCORES, mask_raises, REF_SOFTMAX), "mask", "mask_exception", ["KeyError: 'mask'", "student_apply_mask"]),
    ((REF_SCORES, mask_clobbers_mask, REF_SOFTMAX), "mask", "mask_mutates_input", ["只读的输入 mask"]),
    ((REF_SCORES, REF_MASK, softmax_min_shift), "softmax", "softmax_no_max_subtraction", ["溢出"]),
    ((REF_SCORES, REF_MASK, softmax_whole), "softmax", "softmax_whole_array", ["所有元素", "keepdims"]),
    ((REF_SCORES, REF_MASK, softmax_returns_new), "softmax", "softmax_out_rebound", ["返回了一个新数组"]),
    ((REF_SCORES, REF_MASK, lab.stub_softmax), "softmax", "softmax_out_not_written", ["全部是 0", "没写进 out"]),
    ((REF_SCORES, REF_MASK, softmax_raises), "softmax", "softmax_exception", ["ZeroDivisionError", "student_softmax"]),
    # float64 in, float32 arithmetic: the hidden tests take points for it, so the diagnosis must say so
    ((scores_in_float32, REF_MASK, REF_SOFTMAX), "scores", "scores_lost_precision", ["float64", "astype(np.float32)"]),
    ((REF_SCORES, mask_in_float32, REF_SOFTMAX), "mask", "mask_lost_precision", ["float64", "scores 却只精确到"]),
    ((REF_SCORES, REF_MASK, softmax_in_float32), "softmax", "softmax_lost_precision", ["float64", "保持输入的 dtype"]),
]


@pytest.mark.parametrize("fns, stage, bug, phrases", NAMED, ids=[f"{b}-{f[STAGES.index(s)].__name__}"
                                                                  for f, s, b, _ in NAMED])
def test_each_mistake_is_named_with_its_stage(fns, stage, bug, phrases):
    """Is a one-mistake implementation diagnosed as exactly that mistake, in its stage, with the right advice?"""
    findings = diagnose(*fns)
    assert [(f.stage, f.bug) for f in findings] == [(stage, bug)]
    for phrase in phrases:
        assert phrase in findings[0].message
    assert [line[:line.index("：") + 1] for line in findings[0].message.splitlines()] == ["现象：", "可能原因：", "检查："]


# --- mistakes without a name ----------------------------------------------------------

def scores_off_by_one(Q, K, scale, out):
    if not ok_scores(Q, K, out):
        return -1
    out[...] = scale * (Q @ K.T) + 1.0
    return 0


def mask_subtracted(scores, mask):
    if ok_mask(scores, mask):
        scores -= mask


def softmax_squared(out, inp):
    if ok_softmax(out, inp):
        e = np.exp(inp - inp.max(axis=-1, keepdims=True))
        out[...] = (e / e.sum(axis=-1, keepdims=True)) ** 2


def softmax_epsilon(out, inp):
    if ok_softmax(out, inp):
        e = np.exp(inp - inp.max(axis=-1, keepdims=True))
        out[...] = e / (e.sum(axis=-1, keepdims=True) + 1e-3)  # "for safety": rows now sum to about 0.999


def softmax_2d_only(out, inp):
    if ok_softmax(out, inp):
        for i in range(inp.shape[0]):  # on a 3-D input inp[i] is a matrix, normalised as a whole
            e = np.exp(inp[i] - inp[i].max())
            out[i] = e / e.sum()


@pytest.mark.parametrize("fns, stage, phrase", [
    ((scores_off_by_one, REF_MASK, REF_SOFTMAX), "scores", "最大偏差 1"),
    ((REF_SCORES, mask_subtracted, REF_SOFTMAX), "mask", "上三角没有被压到极小"),
    ((REF_SCORES, REF_MASK, softmax_squared), "softmax", "每行和不是 1"),
    ((REF_SCORES, REF_MASK, softmax_epsilon), "softmax", "最大偏差"),
    ((REF_SCORES, REF_MASK, softmax_2d_only), "softmax", "3-D 输入"),
], ids=["scores", "mask", "softmax", "softmax-epsilon", "softmax-3d-only"])
def test_unnamed_mistake_gets_a_generic_finding_in_the_right_stage(fns, stage, phrase):
    """Does a mistake with no name still point at the first deviating stage, with the table's row?"""
    findings = diagnose(*fns)
    assert [(f.stage, f.bug) for f in findings] == [(stage, f"{stage}_wrong_values")]
    assert phrase in findings[0].message and "没有专门命名" in findings[0].message


def scores_unchecked(Q, K, scale, out):
    out[...] = scale * (Q @ K.T)
    return 0


def mask_unchecked_overlap(scores, mask):
    rows, cols = min(scores.shape[0], mask.shape[0]), min(scores.shape[1], mask.shape[1])
    scores[:rows, :cols] += mask[:rows, :cols]


def test_removed_input_check_raising_is_named_with_the_invalid_probe():
    """Does an implementation without the C input checks get the exception named, on the rejected input?"""
    findings = diagnose(scores_unchecked, REF_MASK, REF_SOFTMAX)
    assert [f.bug for f in findings] == ["scores_exception"]
    assert "ValueError" in findings[0].message and "应返回 -1" in findings[0].message
    assert "输入检查" in findings[0].message


def test_writing_on_a_rejected_input_is_reported():
    """Is a mask applied to mismatched shapes (instead of ignored) reported as a wrong write?"""
    findings = diagnose(REF_SCORES, mask_unchecked_overlap, REF_SOFTMAX)
    assert [f.bug for f in findings] == ["mask_wrong_values"]
    assert "形状不一致时应什么都不做" in findings[0].message and "原样不动" in findings[0].message


def softmax_scalar_loops(out, inp):
    if ok_softmax(out, inp):
        for i in range(inp.shape[0]):
            top = float(inp[i].max())
            total = sum(math.exp(float(v) - top) for v in inp[i])  # float(row) raises on 3-D input
            for j in range(inp.shape[1]):
                out[i, j] = math.exp(float(inp[i, j]) - top) / total


def test_exception_on_one_probe_only_names_that_probe():
    """When only the 3-D input makes C-style scalar loops raise, is the exception named with that probe?"""
    findings = diagnose(REF_SCORES, REF_MASK, softmax_scalar_loops)
    assert [f.bug for f in findings] == ["softmax_exception"]
    assert "TypeError" in findings[0].message and "3-D 输入" in findings[0].message


# --- the chain, the order, the silence ------------------------------------------------

def test_stage_passing_alone_but_failing_in_the_chain_gets_a_pipeline_finding():
    """Does a stateful mask that passes its own probes but breaks in the chain get ``pipeline_mismatch``?"""
    calls = []

    def mask_tired(scores, mask):  # correct for as many calls as the mask probes need, then gives up
        calls.append(1)
        if ok_mask(scores, mask) and len(calls) <= len(PROBES["mask"]):
            scores += mask

    findings = diagnose(REF_SCORES, mask_tired, REF_SOFTMAX)
    assert [(f.stage, f.bug) for f in findings] == [("mask", "pipeline_mismatch")]
    assert "端到端只剩零星 PASS" in findings[0].message and "student_apply_mask" in findings[0].message
    assert findings[0].student.shape == findings[0].reference.shape == (5, 5)


def test_stubs_give_one_finding_per_stage_in_order():
    """Do the untouched stubs give scores, mask, softmax findings in that order, the first named in the text?"""
    findings = diagnose(*lab.STUBS)
    assert [f.bug for f in findings] == ["scores_out_not_written", "mask_not_applied", "softmax_out_not_written"]
    text = format_findings(findings)
    assert text.splitlines()[0].startswith("诊断：最先偏离参考实现的是 student_attention_scores（scores 阶段）")
    assert "1. [scores] scores_out_not_written" in text and "3. [softmax] softmax_out_not_written" in text


def test_several_stages_wrong_are_reported_in_stage_order():
    """With softmax and scores both wrong, does scores come first whatever the order of discovery?"""
    findings = diagnose(scores_no_scale, REF_MASK, softmax_columns)
    assert [f.bug for f in findings] == ["scores_missing_scale", "softmax_wrong_axis"]


def test_diagnosis_is_silent_and_survives_anything(capsys):
    """Do prints, numpy overflow warnings and SystemExit in student code stay out of stdout/stderr?"""
    def scores_chatty(Q, K, scale, out):
        print("debug", Q.shape)
        print("warn", file=sys.stderr)
        raise SystemExit(3)

    tracer = sys.gettrace()
    findings = diagnose(scores_chatty, REF_MASK, softmax_overflows)
    assert [f.bug for f in findings] == ["scores_exception", "softmax_no_max_subtraction"]
    assert "SystemExit: 3" in findings[0].message
    assert capsys.readouterr() == ("", "")
    assert sys.gettrace() is tracer


def test_not_callable_is_an_exception_finding():
    """Is passing None (a cell never run) a finding naming TypeError, not a crash?"""
    findings = diagnose(REF_SCORES, None, REF_SOFTMAX)
    assert [f.bug for f in findings] == ["mask_exception"]
    assert "TypeError" in findings[0].message


def test_findings_carry_the_arrays_for_the_heatmap():
    """Does the first finding hold the student's and the reference's output of the deviating probe?"""
    finding = first_deviation(diagnose(REF_SCORES, mask_multiplies, REF_SOFTMAX))
    assert finding.bug == "mask_multiplied" and finding.probe == "mask/causal"
    assert finding.student.shape == finding.reference.shape == (4, 4)
    upper = np.triu_indices(4, k=1)
    assert np.all(finding.reference[upper] < -1e8) and np.any(finding.student[upper] > 1e8)  # -1e9 x negative score
    kept = np.tril_indices(4)
    assert np.all(finding.student[kept] == 0) and np.all(finding.reference[kept] != 0)


def test_first_deviation_skips_findings_without_arrays():
    """Is there nothing to plot when the first stage only raised, and the finding when it did not?"""
    assert first_deviation([]) is None
    assert first_deviation(diagnose(scores_raises, mask_multiplies, REF_SOFTMAX)) is None
    assert first_deviation(diagnose(scores_no_scale, REF_MASK, REF_SOFTMAX)).bug == "scores_missing_scale"


def test_format_findings_when_all_is_well():
    """Does the text say so plainly when there is nothing to report?"""
    assert format_findings([]) == "诊断：scores、mask、softmax 三段在所有探针输入上都与参考实现一致，没有发现问题。"


def test_format_findings_indents_each_message_under_its_number():
    """Is every message line indented under its numbered header?"""
    finding = Finding("mask", "mask_multiplied", "现象：a\n可能原因：b\n检查：c")
    lines = format_findings([finding]).splitlines()
    assert lines[1:] == ["1. [mask] mask_multiplied", "   现象：a", "   可能原因：b", "   检查：c"]


def test_numeric_side_imports_no_plotting_library():
    """Does importing the diagnosis (and attnkit) leave matplotlib and ipywidgets unloaded?"""
    import subprocess
    code = "import sys, attnkit.diagnose; print(sorted({'matplotlib', 'ipywidgets'} & set(sys.modules)))"
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert result.stdout.strip() == "[]"
