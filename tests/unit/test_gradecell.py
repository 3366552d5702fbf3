"""Does a graded test cell tell the student the truth before submitting (attnkit.gradecell)?"""
import sys

import pytest

from attnkit import gradecell, lab, language
from support.editions import CJK


def k_qt_scores(Q, K, scale, out):
    if not lab.scores_inputs_ok(Q, K, out):
        return -1
    out[...] = scale * (K @ Q.T)  # transposed: invisible on verify's identities
    return 0


def noisy_softmax(out, inp):
    if lab.softmax_inputs_ok(out, inp):
        print("student debug line", file=sys.stderr)  # as a warning would print in a kernel
        lab.softmax(out, inp)


def test_does_the_untouched_stub_get_the_rounded_visible_score(capsys):
    """TEST 1 stub: verify's nine lines, the note with 满分 4 分, and 4 × 6/9 shown as 2.67?"""
    assert gradecell.run(1, lab.stub_attention_scores) == 2.67
    out = capsys.readouterr().out
    assert out.count("[PASS]") + out.count("[FAIL]") == 9
    assert "本格满分 4 分" in out and "隐藏检查" in out and "注意" in out  # the stub is diagnosed too


def test_does_a_full_verify_with_a_hidden_bug_warn_under_the_score(capsys):
    """K @ Q^T passes all nine verify checks, yet the cell warns and names scores_k_qt?"""
    assert gradecell.run(1, k_qt_scores) == 4.0
    out = capsys.readouterr().out
    assert "[FAIL]" not in out
    assert "注意：自动诊断发现 student_attention_scores" in out and "隐藏检查会" in out
    assert "scores_k_qt" not in out and "K @ Q^T 成正比" in out  # the finding in words: its id is the report's


def test_is_a_correct_function_not_warned(capsys):
    """The reference mask: full visible score, no warning?"""
    assert gradecell.run(2, lab.apply_mask) == 3.0
    assert "注意" not in capsys.readouterr().out


def test_does_test4_show_the_whole_diagnosis(capsys):
    """TEST 4 grades the chain: a wrong stage shows the full findings list?"""
    gradecell.run(4, k_qt_scores, lab.apply_mask, lab.softmax)
    assert "最先偏离参考实现的是 student_attention_scores" in capsys.readouterr().out


def test_does_a_student_warning_stay_off_stderr(capsys):
    """What student code writes to stderr lands on stdout: nbgrader scores a test cell with stderr as 0?"""
    gradecell.run(3, noisy_softmax)
    out, err = capsys.readouterr()
    assert err == "" and "student debug line" in out


def test_is_a_wrong_test_number_a_clear_error():
    with pytest.raises(ValueError, match=r"TEST number must be 1-4, got 5"):
        gradecell.cell(5)


def test_does_each_cell_grade_the_roles_of_its_stages():
    """Roles follow the lab's names; TEST 4 grades all three; points add up to 12?"""
    assert [c.roles for c in gradecell.TEST_CELLS][:3] == [(r,) for r in lab.ROLE.values()]
    assert gradecell.cell(4).roles == tuple(lab.ROLE.values())
    assert sum(c.points for c in gradecell.TEST_CELLS) == 12


def test_does_the_english_edition_get_the_same_cell_in_english(capsys):
    """The English edition's TEST 1 stub: the same score, the note and the warning in English, no Chinese?"""
    assert gradecell.run(1, lab.stub_attention_scores, lang="en") == 2.67
    out = capsys.readouterr().out
    assert "This cell is worth 4 points" in out and "hidden checks" in out
    assert "Warning: the diagnosis finds student_attention_scores wrong" in out and "out is still all zeros" in out
    assert "scores_out_not_written" not in out
    assert not CJK.search(out), CJK.findall(out)


def test_does_a_hidden_bug_warn_in_english_under_the_notebooks_choice(capsys):
    """K @ Q^T in an English notebook (use_language, no lang=): the warning says what was seen, in English?"""
    with language.using("en"):
        assert gradecell.run(1, k_qt_scores) == 4.0
    out = capsys.readouterr().out
    assert "Passing all of verify does not mean full marks" in out and "proportional to K @ Q^T" in out
    assert not CJK.search(out)


def test_does_every_cell_say_what_its_hidden_checks_feed_in_both_languages():
    assert all(c.topics("zh") != c.topics("en") and not CJK.search(c.topics("en")) for c in gradecell.TEST_CELLS)



def test_does_validate_fail_a_cell_the_diagnosis_warns_about(capsys, monkeypatch):
    """#59 item 2: under nbgrader's Validate (NBGRADER_EXECUTION=validate) a full verify with a hidden bug writes its
    warning to stderr too, which Validate reports as the cell failing, with the warning, instead of "Success!"; a
    correct cell writes nothing there, and outside Validate the warning stays on stdout only?"""
    monkeypatch.setenv("NBGRADER_EXECUTION", "validate")
    assert gradecell.run(1, k_qt_scores) == 4.0
    out, err = capsys.readouterr()
    assert err.startswith("注意：自动诊断发现 student_attention_scores") and "隐藏检查会" in err and err.strip() in out
    gradecell.run(2, lab.apply_mask)
    assert capsys.readouterr().err == ""
    monkeypatch.delenv("NBGRADER_EXECUTION")
    gradecell.run(1, k_qt_scores)
    assert capsys.readouterr().err == ""
