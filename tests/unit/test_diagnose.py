"""Does the diagnosis name the first deviating stage and the mistake, and stay quiet on correct code?

Every student implementation comes from the two tables of tests/support/mistakes.py — the
grading table (MISTAKES) and the diagnosis-only one (DIAGNOSED) — typed into the released
notebook with the lab's input checks kept, so that each has exactly one mistake. Below them,
the engine itself: the chain, the order, silence, the arrays for the heatmap, the text.
"""
import re
import sys

import numpy as np
import pytest

from attnkit import bugs, glossary, lab, language, troubleshooting
from attnkit.diagnose import Finding, diagnose, diagnose_stage, first_deviation, format_findings
from attnkit.probes import PROBES
from attnkit.safecall import HUNG
from support.editions import CJK, POINTER
from support.mistakes import BY_NAME, DIAGNOSED, DIAGNOSED_BY_NAME, MISTAKES, functions, release

RELEASE = release()

REF_SCORES, REF_MASK, REF_SOFTMAX = lab.REFERENCE
ok_mask = lab.mask_inputs_ok


def test_the_reference_gets_no_finding():
    """Does attnkit's own reference get an empty list?"""
    assert diagnose(*lab.REFERENCE) == []


# --- the grading table: each buggy entry is named as the table says -----

# Words the message must contain, for the table's entries whose rule words them specially.
PHRASES = {
    "bug_no_scale": ["Q @ K^T", "scale = 0.3", "对角线上的 0.5 不对"],
    "bug_default_scale": ["0.5 × (Q @ K^T)", "1/sqrt(head_dim)", "传入的 scale"],
    "bug_k_qt": ["K @ Q^T", "转置", "K[j, d]"],
    "bug_q_qt": ["Q @ Q^T", "K 根本没有参与"],
    "bug_rebind_out": ["重新指向", "out[...] ="],
    "bug_scale_q_in_place": ["只读的输入 Q 或 K"],
    "bug_mask_rebound": ["重新指向", "原地修改", "上三角没有变成 -1e9"],
    "bug_mask_multiplied": ["乘", "加性"],
    "bug_mask_assigned": ["覆盖", "scores 全是 0"],
    "bug_softmax_axis0": ["第 0 维", "axis=-1"],
    "bug_softmax_no_max": ["NaN/inf", "最大值"],
    "bug_softmax_unnormalised": ["没有除以行和", "每行的和不是 1，也不是 0"],
    "bug_softmax_rebind_out": ["softmax 的结果全是 0", "重新指向"],
    "bug_softmax_in_place_inp": ["只读的输入 inp"],
}


# The same, in the English edition's words.
PHRASES_EN = {
    "bug_no_scale": ["Q @ K^T", "scale = 0.3", "The 0.5 on the diagonal is wrong"],
    "bug_default_scale": ["0.5 × (Q @ K^T)", "1/sqrt(head_dim)", "the scale passed in"],
    "bug_k_qt": ["K @ Q^T", "transpose", "K[j, d]"],
    "bug_q_qt": ["Q @ Q^T", "K takes no part"],
    "bug_rebind_out": ["rebound", "out[...] ="],
    "bug_scale_q_in_place": ["read-only input Q or K"],
    "bug_mask_rebound": ["rebound", "in place", "The upper triangle did not become -1e9"],
    "bug_mask_multiplied": ["multiplied", "additive mask"],
    "bug_mask_assigned": ["assigned over", "all zeros"],
    "bug_softmax_axis0": ["axis 0", "axis=-1"],
    "bug_softmax_no_max": ["NaN/inf", "maximum"],
    "bug_softmax_unnormalised": ["never divided by the row's sum", "Rows sum to neither 1 nor 0"],
    "bug_softmax_rebind_out": ["softmax gives all zeros", "rebound"],
    "bug_softmax_in_place_inp": ["read-only input inp"],
}


@pytest.mark.parametrize("mistake", MISTAKES, ids=[m.name for m in MISTAKES])
def test_does_the_diagnosis_name_each_mistake_of_the_table(mistake):
    """First finding = the table's bug id, in its stage, with the right words in each language; a correct entry
    gets none?"""
    findings = diagnose(*functions(mistake, RELEASE))
    assert (findings[0].bug if findings else None) == mistake.diagnosis
    if findings:
        assert mistake.diagnosis.startswith(findings[0].stage + "_")
        for lang, phrases in (("zh", PHRASES), ("en", PHRASES_EN)):
            for phrase in phrases.get(mistake.name, []):
                assert phrase in findings[0].text(lang), (lang, phrase)


# --- the diagnosis table: exactly its findings, in order, with its words --------------------------------

@pytest.mark.parametrize("row", DIAGNOSED, ids=[d.name for d in DIAGNOSED])
def test_does_the_diagnosis_give_exactly_the_tables_findings(row):
    """Findings = the row's (stage, bug) list, in order; the first message has the row's words and the lab's
    three parts (现象 / 可能原因 / 检查)?"""
    findings = diagnose(*functions(row, RELEASE))
    assert [(f.stage, f.bug) for f in findings] == list(row.findings)
    for phrase in row.phrases:
        assert phrase in findings[0].message, phrase
    if findings:
        assert [line[:line.index("：") + 1] for line in findings[0].message.splitlines()] == ["现象：", "可能原因：", "检查："]


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
    # the row is the one verify prints for the function as it behaves now: tired, it adds no mask at all
    assert troubleshooting.pointer("mask", "zh") in findings[0].message and "student_apply_mask" in findings[0].message
    assert troubleshooting.pointer("mask", "en") in findings[0].text("en") and not CJK.search(findings[0].text("en"))
    assert findings[0].student.shape == findings[0].reference.shape == (5, 5)


def test_stubs_are_told_in_stage_order_the_first_named_in_the_text():
    """Do the untouched stubs' findings read scores, mask, softmax, the first stage named in the text?"""
    text = format_findings(diagnose(*lab.STUBS))
    assert text.splitlines()[0].startswith("诊断：最先偏离参考实现的是 student_attention_scores（scores 阶段）")
    numbered = [line for line in text.splitlines() if re.match(r"\d+\. ", line)]
    assert numbered == ["1. [scores]", "2. [mask]", "3. [softmax]"]  # in words only: no bug id reaches a student
    assert "_out_not_written" not in text and "仍然全是 0" in text


def test_diagnosis_is_silent_and_survives_anything(capsys):
    """Do prints, numpy overflow warnings and SystemExit in student code stay out of stdout/stderr?"""
    def scores_chatty(Q, K, scale, out):
        print("debug", Q.shape)
        print("warn", file=sys.stderr)
        raise SystemExit(3)

    tracer = sys.gettrace()
    findings = diagnose(scores_chatty, REF_MASK, functions(BY_NAME["bug_softmax_no_max"], RELEASE)[2])
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
    finding = first_deviation(diagnose(*functions(BY_NAME["bug_mask_multiplied"], RELEASE)))
    assert finding.bug == "mask_multiplied" and finding.probe == "mask/causal"
    assert finding.student.shape == finding.reference.shape == (4, 4)
    upper = np.triu_indices(4, k=1)
    assert np.all(finding.reference[upper] < -1e8) and np.any(finding.student[upper] > 1e8)  # -1e9 x negative score
    kept = np.tril_indices(4)
    assert np.all(finding.student[kept] == 0) and np.all(finding.reference[kept] != 0)


def test_first_deviation_skips_findings_without_arrays():
    """Is there nothing to plot when the first stage only raised, and the finding when it did not?"""
    assert first_deviation([]) is None
    raises = functions(DIAGNOSED_BY_NAME["scores_raises"], RELEASE)[0]
    multiplies = functions(BY_NAME["bug_mask_multiplied"], RELEASE)[1]
    assert first_deviation(diagnose(raises, multiplies, REF_SOFTMAX)) is None
    assert first_deviation(diagnose(*functions(BY_NAME["bug_no_scale"], RELEASE))).bug == "scores_missing_scale"


def test_format_findings_when_all_is_well():
    """Does the text say so plainly when there is nothing to report?"""
    assert format_findings([]) == "诊断：scores、mask、softmax 三段在所有探针输入上都与参考实现一致，没有发现问题。"


def test_format_findings_indents_each_message_under_its_number():
    """Is every message line indented under its numbered header, in the language asked for?"""
    finding = Finding("mask", "mask_multiplied", {"zh": "现象：a\n可能原因：b\n检查：c", "en": "Seen: a\nLikely cause: b\nCheck: c"})
    lines = format_findings([finding]).splitlines()
    assert lines[1:] == ["1. [mask]", "   现象：a", "   可能原因：b", "   检查：c"]
    lines = format_findings([finding], "en").splitlines()
    assert lines[0].startswith("Diagnosis: the first stage to leave the reference is student_apply_mask (the mask stage).")
    assert lines[1:] == ["1. [mask]", "   Seen: a", "   Likely cause: b", "   Check: c"]


def test_format_findings_in_english_when_all_is_well():
    assert format_findings([], "en") == ("Diagnosis: scores, mask and softmax agree with the reference on every probe; "
                                         "nothing found.")


def test_numeric_side_imports_no_plotting_library():
    """Does importing the diagnosis (and attnkit) leave matplotlib and ipywidgets unloaded?"""
    import subprocess
    code = "import sys, attnkit.diagnose; print(sorted({'matplotlib', 'ipywidgets'} & set(sys.modules)))"
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert result.stdout.strip() == "[]"


# --- computed once per function under grading --------------------------------

def _counting(fn, calls: list):
    def counted(*args):
        calls.append(1)
        return fn(*args)
    return counted


@pytest.mark.parametrize("mode", ["autograde", None])
def test_is_each_function_diagnosed_once_under_grading_and_every_time_otherwise(monkeypatch, mode):
    """The 4.9 demo and the graded cells ask alike: under grading, the second ask runs no student code;
    in the student's own run, every ask runs it again?"""
    if mode:
        monkeypatch.setenv("NBGRADER_EXECUTION", mode)
    else:
        monkeypatch.delenv("NBGRADER_EXECUTION", raising=False)
    calls = []
    fns = [_counting(fn, calls) for fn in lab.REFERENCE]
    first = diagnose(*fns)
    once = len(calls)
    assert once > 0 and diagnose(*fns) == first
    assert diagnose_stage("softmax", fns[2]) == []
    assert len(calls) == (once if mode else 2 * once + len(PROBES["softmax"]))


def test_does_a_new_function_get_its_own_diagnosis_under_grading(monkeypatch):
    """A function redefined (a new object) is diagnosed afresh, not given the old one's findings?"""
    monkeypatch.setenv("NBGRADER_EXECUTION", "autograde")
    assert diagnose_stage("softmax", lambda out, inp: REF_SOFTMAX(out, inp)) == []
    wrong = BY_NAME["bug_softmax_no_max"]
    assert diagnose_stage("softmax", functions(wrong, RELEASE)[2]) != []


# --- both languages: every finding has its English, saying the same -----------------------------------------

ROW_KEY = {lang: {troubleshooting.symptom(key, lang): key for key in troubleshooting.SYMPTOMS} for lang in ('zh', 'en')}


def _student_words(finding) -> list:
    """What the student's own code wrote into the message (an exception's text), in either language."""
    return re.findall(r"(?:抛出了 )(.+?)。", finding.text("zh"))


def _same_in_both(finding) -> list:
    """How the English message of ``finding`` falls short of the Chinese one ([] when it says the same)."""
    zh, en = finding.text("zh"), finding.text("en")
    problems = []
    if [line.split("：")[0] for line in zh.splitlines()] != ["现象", "可能原因", "检查"]:
        problems.append(f"Chinese lines: {zh!r}")
    if [line.split(": ")[0] for line in en.splitlines()] != ["Seen", "Likely cause", "Check"]:
        problems.append(f"English lines: {en!r}")
    rows = {lang: [ROW_KEY[lang].get(s, s) for s in pointer.findall(text)]
            for lang, pointer, text in (("zh", POINTER["zh"], zh), ("en", POINTER["en"], en))}
    if rows["zh"] != rows["en"]:
        problems.append(f"points at other rows: {rows}")
    for words in _student_words(finding):
        en = en.replace(words, "")
    if CJK.search(en):
        problems.append(f"Chinese in the English: {CJK.findall(en)}")
    return problems


@pytest.mark.parametrize("entry", [*MISTAKES, *DIAGNOSED], ids=lambda e: e.name)
def test_does_every_finding_say_the_same_in_english(entry):
    """For both mistake tables: each finding has both languages, three labelled lines each, the same table row,
    and no Chinese in the English beyond what the student's code raised?"""
    findings = diagnose(*functions(entry, RELEASE))
    assert all(set(f.messages) == set(language.LANGUAGES) for f in findings)
    assert [p for f in findings for p in _same_in_both(f)] == []


def test_does_an_english_message_that_points_elsewhere_get_caught():
    """Control: an English message naming another row, or holding a Chinese word, is reported?"""
    zh = f"现象：x（对应{troubleshooting.pointer('mask', 'zh')}）。\n可能原因：y\n检查：z"
    other = Finding("mask", "mask_x", {"zh": zh, "en": f"Seen: x (see {troubleshooting.pointer('pipeline', 'en')})\nLikely cause: y\nCheck: z"})
    chinese = Finding("mask", "mask_x", {"zh": zh, "en": f"Seen: x (see {troubleshooting.pointer('mask', 'en')})\nLikely cause: 掩码\nCheck: z"})
    assert len(_same_in_both(other)) == 1 and len(_same_in_both(chinese)) == 1


def test_is_a_function_that_timed_out_described_in_each_language():
    """A call attnkit refused (it timed out in an earlier cell) reads as such in the message's own language?"""
    assert "在前面的单元格里运行超时" in bugs.error_text(HUNG, "zh")
    assert bugs.error_text(HUNG, "en") == "TimeoutError: it timed out in an earlier cell and is not called again while grading"
    assert bugs.error_text("KeyError: 'x'", "en") == "KeyError: 'x'"


def test_does_the_diagnosis_use_the_glossarys_words_and_avoid_the_others():
    """Every English message over both tables: no word the glossary says to avoid; its pointers name the
    glossary's troubleshooting table and probe?"""
    texts = [f.text("en") for e in (*MISTAKES, *DIAGNOSED) for f in diagnose(*functions(e, RELEASE))]
    avoided = [(word, t[:60]) for t in texts for term in glossary.TERMS for word in term.avoid if word in t.lower()]
    assert avoided == []
    assert all(f'the {glossary.term("probe", "en")} "' in t for t in texts if t.startswith("Seen: on"))
    assert any(glossary.term("table", "en") in t for t in texts)


def test_does_the_notebooks_language_choose_the_message():
    """Finding.message follows use_language; text(lang) is what was asked for whatever the notebook chose?"""
    finding = diagnose(*lab.STUBS)[0]
    with language.using("en"):
        assert finding.message == finding.text("en") and finding.message.startswith("Seen: ")
        assert format_findings([finding]).startswith("Diagnosis: ")
        assert finding.text("zh").startswith("现象：")
    assert finding.message.startswith("现象：")
