"""Does the marking page tell a negated or denied phrase from an affirmed one, in both languages, and leave alone the
words that only look like a negation?

One table of cases: (text, phrase, the cue that turns it round or "" when it is affirmed). The phrase is found in the
text and asked about as the rubric's hints ask (coursekit.marking.negation).
"""
import pytest

from coursekit.marking.negation import clauses, denial_after, negated_spans, negation_before, negation_within

CASES = [
    # Chinese: negated
    ("softmax 不会接近 one-hot，最大权重不会接近 1。", "接近 1", "不会"),
    ("两种顺序的结果并不相同。", "相同", "并不"),
    ("这一行没有被屏蔽的位置，所以出现 NaN", "被屏蔽", "没有"),
    ("是先加掩码，而不是先做 softmax", "先做 softmax", "而不是"),
    ("矩阵乘法并没有快多少", "快多少", "并没有"),
    # Chinese: affirmed, though a cue is near
    ("不缩放时分数的标准差约为 8", "标准差约为 8", ""),          # a condition, not a denial
    ("没有缩放的话，方差约为 head_dim", "方差约为 head_dim", ""),  # the condition ends at the comma
    ("多头能在不同子空间里同时关注不同的位置", "同时关注", ""),    # 不同 is no negation
    ("先 softmax 时未来位置已经分走了概率", "分走了概率", ""),     # 未来 is no negation
    ("这不仅更快，而且和先加掩码相同", "相同", ""),               # 不仅 … 而且
    ("方差变大了，但不会影响排序", "方差变大", ""),               # the negation is in the next clause
    # English: negated
    ("Subtracting the maximum does not change the result", "change the result", "not"),
    ("The weights are never close to 1.", "close to 1", "never"),
    ("It doesn't prevent overflow", "prevent overflow", "n't"),
    ("The mask goes first rather than zeroing afterwards", "zeroing afterwards", "rather than"),
    ("No NaN appears in any row", "NaN appears", "No"),
    # English: affirmed
    ("If the scores are not scaled the variance is about head_dim", "variance is about head_dim", ""),
    ("It depends not only on the second largest score", "second largest score", ""),
    ("The variance does not shrink. It grows with head_dim.", "grows with head_dim", ""),  # the next sentence
    ("Not scaled, the scores spread out; the largest weight goes to 1", "goes to 1", ""),
]


@pytest.mark.parametrize("text, phrase, cue", CASES, ids=[f"{c[2] or 'affirmed'}-{c[1]}" for c in CASES])
def test_is_a_phrase_under_a_negation_told_by_its_cue(text, phrase, cue):
    start = text.index(phrase)
    found = negation_before(text, start)
    assert (found or "").lower() == cue.lower(), (text, phrase, found)


@pytest.mark.parametrize("text, phrase, verdict", [
    ("方差约为 head_dim 的说法是错的", "方差约为 head_dim", "是错的"),
    ("说 -inf 和 -1e9 一样，这不成立", "一样", ""),     # the verdict stands in its own clause: not this one's
    ("That the variance is about head_dim is wrong", "variance is about head_dim", "is wrong"),
    ("The claim that softmax changes is not true", "softmax changes", "is not true"),
    ("The variance is about head_dim, which is right", "variance is about head_dim", ""),
])
def test_is_a_claim_denied_after_it_in_its_clause(text, phrase, verdict):
    found = denial_after(text, text.index(phrase) + len(phrase))
    assert (found or "") == verdict


def test_does_a_cue_inside_a_patterns_gap_count_unless_the_pattern_writes_it():
    """A pattern with a gap ('标准差[^。]{0,12}8') matches across "并不会"; a pattern that says "not" itself does not?"""
    text = "标准差并不会变成 8"
    assert negation_within(text, 0, len(text), "标准差[^。；]{0,12}8") == "并不"
    english = "the temperature does not depend on head_dim"
    assert negation_within(english, 4, len(english), "temperature[^.]{0,40}(does not|doesn.t) depend") is None


def test_are_clauses_cut_at_punctuation_and_turning_words_but_not_at_decimals():
    text = "最大权重是 0.352，但多数行接近 1. The ratio grows, but it levels off"
    parts = [text[c.start:c.end].strip(" ，,.") for c in clauses(text)]
    assert parts == ["最大权重是 0.352", "但多数行接近 1", "The ratio grows", "but it levels off"]


def test_does_a_negated_span_run_from_the_cue_to_its_clauses_end():
    text = "分数不会接近 1，方差约为 64"
    assert [text[a:b] for a, b in negated_spans(text)] == ["接近 1，"]
