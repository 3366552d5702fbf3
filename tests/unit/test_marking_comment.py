"""Does a judgement's comment read well in the feedback, in its edition's language, and come back as the same
judgement whatever language it was written in?"""
import pytest

from coursekit.language import PSEUDO, WORDS
from coursekit.marking.comment import Judgement, compose, parse

POINTS = ["方差随 head_dim 增大", "softmax 指数放大差距"]


@pytest.mark.parametrize("lang", ["zh", "en", PSEUDO])
def test_does_the_comment_list_ticked_and_missed_points_in_the_editions_language(lang):
    text = compose(Judgement((True, False), "第二点没有提到。"), POINTS, 0.5, 1.0, lang)
    assert text == (WORDS.say(lang, "feedback.comment_points")
                    + WORDS.say(lang, "feedback.comment_score", score="0.5", max_score="1")
                    + "\n- ✓ 方差随 head_dim 增大\n- ✗ softmax 指数放大差距\n\n"
                    + WORDS.say(lang, "feedback.comment_remark") + "第二点没有提到。")
    assert parse(text, POINTS) == Judgement((True, False), "第二点没有提到。")


def test_is_the_chinese_comment_as_it_was():
    """The Chinese edition's comment, byte for byte as the gradebooks already hold it?"""
    text = compose(Judgement((True, False), "第二点没有提到。"), POINTS, 0.5, 1.0)
    assert text == ("**得分要点**（0.5 / 1 分）\n- ✓ 方差随 head_dim 增大\n- ✗ softmax 指数放大差距\n\n"
                    "**评语**：第二点没有提到。")


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_is_unanswered_said_so_and_read_back(lang):
    text = compose(Judgement(unanswered=True), POINTS, 0.0, 1.0, lang)
    assert text.startswith(WORDS.say(lang, "feedback.comment_unanswered")) and parse(text, POINTS).unanswered


def test_is_a_comment_typed_in_the_formgrader_kept_whole_as_the_remark():
    assert parse("Good, but say why.", POINTS) == Judgement(remark="Good, but say why.")
    assert parse(None, POINTS) == Judgement() and compose(Judgement(), POINTS, None, 1.0) is None


def test_does_a_changed_rubric_keep_the_remark_and_show_no_ticks():
    text = compose(Judgement((True, True), "好"), POINTS, 1.0, 1.0)
    assert parse(text, ["另一个要点", POINTS[1]]) == Judgement(None, "好")
