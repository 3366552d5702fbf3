"""Which answers does the marking page judge once: normalisation, identical and near-identical groups, splits?"""
from coursekit.marking.grouping import NEAR, group_answers, ngrams, similarity, split_by_judgement
from coursekit.marking.normalise import is_unanswered, normalise

STUB = "在这里写你的回答。"
ANSWER = "softmax 把分数差按指数放大，权重接近 one-hot；梯度很小。"


def test_do_whitespace_punctuation_and_widths_not_matter():
    """Full-width punctuation, half-width letters, spaces, case and line breaks: the same key?"""
    variants = [ANSWER, "softmax把分数差按指数放大,权重接近one-hot;梯度很小.", "  SOFTMAX 把分数差 按指数放大，\n权重接近 ｏｎｅ-ｈｏｔ；梯度很小。 "]
    assert len({normalise(v) for v in variants}) == 1


def test_do_the_symbols_that_carry_meaning_stay():
    """4 × 64 and 4 + 64, √d and d: different answers?"""
    assert normalise("4 × 64") != normalise("4 + 64")
    assert normalise("除以 √d") != normalise("除以 d")


def test_is_the_release_stub_unanswered_up_to_spaces_and_an_empty_answer_too():
    assert is_unanswered(STUB, STUB) and is_unanswered(" 在这里写你的回答 \n", STUB) and is_unanswered("", STUB)
    assert not is_unanswered("在这里写你的回答。方差变大。", STUB)


def test_are_identical_answers_one_group_and_the_unanswered_first():
    answers = {"a": ANSWER, "b": ANSWER.replace("，", ","), "c": STUB, "d": "", "e": "完全不同：讲的是掩码的顺序。"}
    groups = group_answers(answers, STUB)
    assert [(g.kind, g.students) for g in groups] == [("unanswered", ["c", "d"]), ("identical", ["a", "b"]),
                                                      ("single", ["e"])]


def test_is_a_copy_with_a_word_changed_proposed_as_near_identical():
    """A copy with one word added is a proposed group (both texts kept as variants to read)?"""
    copy = ANSWER.replace("很小", "非常小")
    assert similarity(ngrams(normalise(ANSWER)), ngrams(normalise(copy))) >= NEAR
    (group,) = group_answers({"a": ANSWER, "b": copy}, STUB)
    assert group.kind == "near" and len(group.keys) == 2 and group.students == ["a", "b"]


def test_do_different_answers_to_one_question_stay_apart():
    other = "缩放把方差拉回 1 左右，分布的温度不随 head_dim 变化，所以不会过于尖锐。"
    assert similarity(ngrams(normalise(ANSWER)), ngrams(normalise(other))) < 0.3
    assert len(group_answers({"a": ANSWER, "b": other}, STUB)) == 2


def test_does_a_chain_of_small_changes_not_pull_distant_answers_together():
    """A ≈ B ≈ C but A ≉ C: C is not put into A's group through B (leader clustering)?"""
    a = "甲乙丙丁戊己庚辛壬癸子丑寅卯辰巳午未申酉戌亥天地玄黄宇宙洪荒"
    b = a[:-8] + "日月盈昃辰宿列张"
    c = "寒来暑往秋收冬藏" + b[8:]
    sim = lambda x, y: similarity(ngrams(normalise(x)), ngrams(normalise(y)))
    groups = group_answers({"a": a, "a2": a, "b": b, "c": c}, STUB, near=min(sim(a, b), sim(b, c)))
    assert sim(a, c) < min(sim(a, b), sim(b, c))
    assert not any({"a", "c"} <= set(g.students) for g in groups)


def test_does_a_split_answer_stand_alone_right_after_its_group():
    answers = {"a": ANSWER, "b": ANSWER, "c": ANSWER, "z": "别的回答，完全不一样的内容。"}
    groups = group_answers(answers, STUB, split={"b"})
    assert [(g.kind, g.students) for g in groups] == [("identical", ["a", "c"]), ("single", ["b"]), ("single", ["z"])]


def test_are_members_judged_differently_shown_as_their_own_groups():
    """Another marker gave one member of a group another score: that member is no longer hidden in it?"""
    groups = group_answers({"a": ANSWER, "b": ANSWER, "c": ANSWER}, STUB)
    parts = split_by_judgement(groups, lambda s: "1.0" if s == "b" else "none")
    assert sorted(p.students for p in parts) == [["a", "c"], ["b"]]
