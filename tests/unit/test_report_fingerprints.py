"""Do the fingerprints see past names, comments, spacing and the release's own lines, and mark what two cells share?"""
import re

from coursekit.report.fingerprints import MARK, fingerprint, fingerprints, highlighted, normalised, own_part
from coursekit.report.solutions import CODE, TEXT
from coursekit.report.statements import ground_of

RELEASED = "def f(x):\n    # Write your implementation here\n    pass\n    return 0\n"
ONE = "def f(x):\n    total = x.sum(axis=-1)  # row sums\n    return 0\n"
TWO = "def f(x):\n    acc   =  x.sum( axis = -1 )\n    return 0\n"


def test_are_the_releases_lines_taken_out_each_once():
    """The stub and the given lines go, each as often as the release has it; where the rest came from is kept?"""
    text, where = own_part(ONE + "    return 0\n", RELEASED)
    assert text == "    total = x.sum(axis=-1)  # row sums\n    return 0\n"
    assert "".join((ONE + "    return 0\n")[i] for i in where) == text


def test_is_renamed_and_recommented_code_the_same_fingerprint():
    assert fingerprint(ONE, CODE, released=RELEASED).hashes == fingerprint(TWO, CODE, released=RELEASED).hashes
    assert not fingerprint(RELEASED, CODE, released=RELEASED).hashes  # the stub left as released: nothing


def test_is_text_normalised_for_chinese_and_english_alike():
    """Full-width and half-width, case, spaces and punctuation count for nothing; each character knows its origin?"""
    form, where = normalised("Ａ，b  c。头")
    assert form == "abc头" and where == [0, 2, 5, 7]
    assert (fingerprint("Softmax, 减去最大值！", TEXT).hashes == fingerprint("softmax减去最大值", TEXT).hashes)


def test_are_shared_regions_marked_and_everything_escaped():
    """What the two share is in <mark>; a student's '<script>' is text, never markup?"""
    first = "def f(x):\n    y = np.exp(x - x.max()) / np.exp(x - x.max()).sum()  # <script>\n    return 0\n"
    second = "def f(x):\n    z = np.exp(x - x.max()) / np.exp(x - x.max()).sum()\n    return 0\n"
    one, two = highlighted(first, second, CODE, frozenset(), released=RELEASED)
    assert MARK[0] in one and MARK[0] in two and "<script>" not in one and "&lt;script&gt;" in one
    marked = re.findall(r"<mark>(.*?)</mark>", one, re.S)
    assert marked and not [part for part in marked if "return 0" in part]  # the release's line is not matched


def test_is_nothing_marked_when_the_shared_part_is_ignored():
    shared = fingerprint(ONE, CODE, released=RELEASED).hashes
    one, two = highlighted(ONE, TWO, CODE, frozenset(shared), released=RELEASED)
    assert MARK[0] not in one + two and "total" in one


def test_does_junk_after_every_line_leave_the_fingerprint_as_it_was():
    """`_ = 0`, `pass` and a docstring after each line of a cell: the same fingerprint as the cell without them?"""
    code = "def f(x):\n    y = np.exp(x - x.max())\n    z = y / y.sum()\n    return z\n"
    junk = ("def f(x):\n    '''mine'''\n    y = np.exp(x - x.max())\n    _ = 0\n    z = y / y.sum()\n    pass\n"
            "    0\n    return z\n")
    assert fingerprint(junk, CODE).hashes == fingerprint(code, CODE).hashes != frozenset()


def test_are_runs_inside_what_the_release_spells_out_told_apart_and_left_unmarked():
    """A cell of one spelled-out statement and one of the student's own: the runs wholly inside the first are its
    common ground, those reaching into the second are not, and only the student's own statement is marked?"""
    ground = ground_of(["out[...] = scale * (Q @ K.T)\n"])
    cell = "out[:] = scale * (Q @ K.T)\nout += np.tril(np.ones_like(out))\n"
    work, spelled = fingerprints(cell, CODE, ground=ground)
    alone = fingerprint("out[:] = scale * (Q @ K.T)\n", CODE).hashes
    assert spelled == alone and spelled < work == fingerprint(cell, CODE).hashes
    one, two = highlighted(cell, cell.replace("out", "res"), CODE, frozenset(), ground=ground)
    assert "scale" not in "".join(re.findall(r"<mark>(.*?)</mark>", one, re.S)) and "tril" in one.split("<mark>")[1]


def test_does_a_mark_start_where_the_shared_code_starts_after_blank_lines():
    """Blank lines before a cell's own code (pygments drops them, copydetect counts its places without them): the
    mark still starts at the first shared name, not two characters into it?"""
    first = "\n\nvalue = np.exp(x - x.max()) / np.exp(x - x.max()).sum()\n"
    one, _ = highlighted(first, first.replace("value", "other"), CODE, frozenset())
    assert re.findall(r"<mark>(.*?)</mark>", one, re.S)[0].startswith("value = np.exp")
