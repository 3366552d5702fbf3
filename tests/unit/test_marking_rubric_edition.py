"""Is the English rubric written from the one master rubric and the marking guide's catalogue, point for point, and
is the committed file current?"""
import tomllib

import pytest

from coursekit.marking.rubric import RubricError, load_rubrics, rubric_file
from coursekit.language import WORDS
from coursekit.marking.rubric_edition import PointWords, edition_file, edition_text, write_edition
from coursekit.paths import ASSIGNMENT, COURSE
from support.editions import ASSIGNMENTS, CJK, release_script

ONE = PointWords("a_rubric.po", {"q_a": {"一": "one"}})  # the English of MASTER_POINT's text, as a catalogue gives it

MASTER_POINT = """[[q_a.points]]
text = "一"
share = {share}
terms = ["方差"]
patterns = ['方差[^。]{{0,4}}64']
en.terms = ["variance"]
en.patterns = ['variance\\s+of\\s+64']
"""


def _master(tmp_path, text: str):
    path = rubric_file(tmp_path, "a")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def _words(lang: str) -> PointWords:
    release_script()  # which puts scripts/ on sys.path, for its translations module
    import translations
    return translations.rubric_words(lang)


def test_is_the_committed_english_rubric_what_the_master_gives():
    """autograde/rubrics/ch04_attention_en.toml is written by `make release` from ch04_attention.toml and the marking
    guide's English catalogue: unchanged, its header from coursekit's catalogue?"""
    committed = rubric_file(COURSE, ASSIGNMENTS["en"]).read_text(encoding="utf-8")
    assert committed == edition_file(COURSE, ASSIGNMENT, ASSIGNMENTS["en"], "en", _words("en"))
    assert WORDS.say("en", "rubric.contradictions") in committed.splitlines()[3]


def test_are_the_points_words_only_in_the_catalogue():
    """The master rubric holds no English text of a point (en.text): each point's English is an entry of
    ch04_attention_rubric.po, its question the context, and every point has one?"""
    master = tomllib.loads(rubric_file(COURSE, ASSIGNMENT).read_text(encoding="utf-8"))
    points = [(question, point) for question, table in master.items() for point in table["points"]]
    assert not [point for _, point in points if "text" in point.get("en", {})]
    english = _words("en")
    assert all(english.texts[question][point["text"]] for question, point in points)
    assert sum(map(len, english.texts.values())) == len(points)


def test_does_each_edition_have_the_same_points_with_the_same_shares():
    """Both rubrics: the same questions, the same number of points in the same order, the same shares; the words
    differ (the English has no Chinese)?"""
    zh, en = (load_rubrics(COURSE, ASSIGNMENTS[lang]).by_question for lang in ("zh", "en"))
    assert list(zh) == list(en) and len(zh) == 8
    for question in zh:
        assert [p.share for p in zh[question].points] == [p.share for p in en[question].points]
        assert not [b.text for b in en[question].points if CJK.search(b.text + "".join(b.terms + b.patterns))]
        assert all(CJK.search(a.text) for a in zh[question].points)


def test_does_a_point_added_once_reach_both_editions(tmp_path):
    """Control: a point added to the master (with its English) is in the English rubric, share and all?"""
    master = _master(tmp_path, MASTER_POINT.format(share=0.5) + "\n" + MASTER_POINT.format(share=0.5))
    english = tomllib.loads(edition_text(master, "en", ONE))
    assert english == {"q_a": {"points": [{"text": "one", "share": 0.5, "terms": ["variance"],
                                           "patterns": ["variance\\s+of\\s+64"]}] * 2}}
    written = write_edition(tmp_path, "a", "a_en", "en", ONE)
    assert written.name == "a_en.toml" and len(load_rubrics(tmp_path, "a_en").by_question["q_a"].points) == 2


def test_does_a_point_without_its_english_name_the_file_the_entry_and_the_catalogue(tmp_path):
    master = _master(tmp_path, MASTER_POINT.format(share=0.5) + '\n[[q_a.points]]\ntext = "二"\nshare = 0.5\n')
    with pytest.raises(RubricError, match=r"a\.toml: \[\[q_a\.points\]\] #2 has no text in the 'en' edition: "
                                          r"translate it in a_rubric\.po"):
        edition_text(master, "en", ONE)


def test_are_strings_written_so_that_toml_reads_them_back(tmp_path):
    """Quotes, backslashes, newlines and non-ASCII in a point survive the round trip?"""
    master = _master(tmp_path, r"""[[q_a.points]]
text = "x"
share = 1.0
en.patterns = ["it's", 'a\d']
""")
    words = PointWords("a_rubric.po", {"q_a": {"x": 'say "it\'s" \\ and\nmore ≤ 32'}})
    point = tomllib.loads(edition_text(master, "en", words, "header line"))["q_a"]["points"][0]
    assert point == {"text": 'say "it\'s" \\ and\nmore ≤ 32', "share": 1.0, "patterns": ["it's", "a\\d"]}
