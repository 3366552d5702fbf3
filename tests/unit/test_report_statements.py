"""Which statements of a cell count as a student's own work (coursekit.report.statements): is junk dropped, is what
the release spells out told apart, and is everything else kept?"""
import ast
import re

import pytest

from coursekit.report.statements import Ground, ground_of, spans, spelled

BODY = "def f(x, out):\n    y = x + 1\n{junk}\n    out[...] = y\n"


@pytest.mark.parametrize("junk", [
    "    _ = 0", "    pass", "    0", "    ...", "    'a string said nowhere'", '    """a docstring\n    on two lines"""',
    "    x", "    x.shape", "    unused = y", "    _ = 0; _ = 1", "    if False:\n        y = 3", "    while 0:\n        pass",
    "    for _ in range(3):\n        pass", "    if x:\n        pass\n    else:\n        ...", "    del _unused",
])
def test_is_a_statement_without_effect_dropped_whole(junk):
    """Each kind of junk (the issue's `_ = 0` after a line, pass, bare constants and names, docstrings as
    statements, dead branches and loops, stores nothing reads): its span is the junk, all of it, nothing else?"""
    source = BODY.format(junk=junk)
    found = spans(source)
    assert re.sub(r"\s", "", "".join(source[a:b] for a, b in found)) == re.sub(r"\s", "", junk)


@pytest.mark.parametrize("kept", ["    y = 0", "    print(y)", "    _ = np.exp(y)", "    out[...] = 0", "    x += y",
                                  "    for _ in items():\n        out[0] += 1", "    %timeit f(x)"])
def test_is_a_statement_with_an_effect_kept(kept):
    """A store something reads, a call (it may print or change its arguments), a write into an array, an in-place
    addition (scores += mask changes the caller's array), a loop over something it calls, a magic (the cell no
    longer parses: nothing is dropped)?"""
    assert spans(BODY.format(junk=kept)) == ()


def test_does_a_span_count_characters_where_the_line_holds_chinese():
    """ast counts columns in UTF-8 bytes: a statement after Chinese on its line is cut at its own characters?"""
    source = "print('分数'); _ = 0\n"
    assert [source[a:b] for a, b in spans(source)] == ["_ = 0"]


@pytest.mark.parametrize("comment, said", [
    ("# 把 scale * Q @ K^T 写进预先分配好的 out（形状 [seq_q, seq_k]）；成功返回 0", "scale * Q @ K.T"),
    ("# Write scale * Q @ K^T into the preallocated out; return 0 on success", "scale * Q @ K.T"),
    ("# 原地把加性掩码加到 scores 上：scores[i][j] += mask[i][j]", "scores[i][j] += mask[i][j]"),
])
def test_does_a_comment_spell_out_its_code(comment, said):
    """The code inside a comment in either edition's words, the transpose of prose (^T) read as numpy's .T?"""
    assert said in [ast.unparse(node) for node in spelled(comment + "\npass\n")]


def test_does_prose_alone_spell_out_nothing():
    assert spelled("# 沿最后一维做数值稳定的 softmax，结果写进 out\n# return 0 on success\npass\n") == []


def test_is_common_ground_what_the_master_and_the_comments_say_in_any_names():
    """The master's statements in other names, a value its comments spell out written into any array: common
    ground; the same value scaled differently, or a statement of the student's own: not?"""
    ground = ground_of(["shifted = inp - inp.max(axis=-1, keepdims=True)\nscores += mask\n"],
                       ["def f(Q, K, scale, out):\n    # 把 scale * Q @ K^T 写进 out\n    pass\n"])
    cell = ("z = x - x.max(axis=-1, keepdims=True)\nout[:] = scale * Q @ K.T\nmine = np.exp(z)\nA += B\n"
            "out[...] = (Q @ K.T) / scale\n")
    assert [cell[a:b] for a, b in spans(cell, ground)] == [
        "z = x - x.max(axis=-1, keepdims=True)", "out[:] = scale * Q @ K.T", "A += B"]
    assert spans(cell, Ground()) == ()
