"""One master, two editions: is the English complete, current, and is all else the master's, written once?

The English of each cell is in the chapter's English catalogue (autograde/locale/en/LC_MESSAGES/ch04_attention.po,
attnkit.edition); ``make release`` writes ``notebooks/en/`` from it (tests/integration/test_release_notebook.py
checks the committed copies are fresh).
"""
import copy
import io
import tokenize

import nbformat
import pytest

from attnkit import edition, glossary, language
from attnkit.exercises import EXERCISES
from coursekit.paths import MASTER
from support.editions import EDITIONS, cell_source, master, release, release_script, translation

# Code cells whose English differs in more than comments and strings, and why (the rest: comments, strings only).
CODE_THAT_DIFFERS = {
    "setup": "the edition chooses its language right after `import attnkit`",
    "multihead-grid": "the example sentence is the edition's own words: list('小猫坐在垫子上') / '... mat'.split()",
}


def raw_master() -> nbformat.NotebookNode:
    return nbformat.read(MASTER, as_version=4)


# a string's words (Python 3.12 splits an f-string into pieces, 3.11 keeps it whole)
WORDS = {tokenize.STRING, getattr(tokenize, "FSTRING_MIDDLE", tokenize.STRING)}


def code_tokens(source: str) -> list:
    """The code of a cell without its comments and the words of its strings."""
    kept = []
    for tok in tokenize.generate_tokens(io.StringIO(source).readline):
        if tok.type in (tokenize.COMMENT, tokenize.NL, tokenize.NEWLINE):
            continue
        kept.append("STRING" if tok.type in WORDS else tok.string)
    return kept


# ---------- the catalog ----------

def test_is_the_english_complete_and_current():
    """Every Chinese prose cell has English written from its current Chinese; every code cell's Chinese has an
    English entry that still matches; nothing Chinese is left?"""
    assert edition.problems(raw_master(), "en", translation("en")) == []


def _without(cell_id: str) -> edition.Translation:
    english = copy.deepcopy(translation("en"))
    english.prose.pop(cell_id)
    return english


def _changed(cell_id: str, **entry) -> edition.Translation:
    english = copy.deepcopy(translation("en"))
    chinese, text, stale = english.prose[cell_id]
    english.prose[cell_id] = (entry.get("chinese", chinese), entry.get("text", text), entry.get("stale", stale))
    return english


@pytest.mark.parametrize("english, edited, found", [
    (lambda: _without("s45-shape"), "", "no translation"),
    (lambda: translation("en"), "\n\n新的一句。", "the Chinese changed since it was translated"),
    (lambda: _changed("s45-shape", stale=True), "", "the Chinese changed since it was translated"),
    (lambda: _changed("s45-shape", text="English, with 中文 left in it."), "", "Chinese in the translation"),
])
def test_does_a_missing_stale_or_half_translated_prose_cell_get_reported(english, edited, found):
    """Control: a prose cell without English, with Chinese edited afterwards (or its entry fuzzy), or with Chinese
    left is named?"""
    nb = raw_master()
    next(c for c in nb.cells if c.id == "s45-shape").source += edited
    problems = edition.problems(nb, "en", english())
    assert [p for p in problems if p.startswith("cell 's45-shape'")] != [] and any(found in p for p in problems)


def test_does_an_edited_comment_or_a_new_chinese_comment_get_reported():
    """Control: code whose Chinese comment changed (its entry no longer matches) or a new Chinese comment is named?"""
    nb = raw_master()
    cell = next(c for c in nb.cells if c.id == "demo-shape")
    cell.source = cell.source.replace("三个查询位置", "三个查询") + "\nx = 1  # 新的注释"
    problems = [p for p in edition.problems(nb, "en", translation("en")) if p.startswith("cell 'demo-shape'")]
    assert len(problems) == 2 and "no longer in the code" in problems[0] and "新的注释" in problems[1]


def test_does_an_edited_chinese_make_the_catalogue_entry_fuzzy_until_reviewed(tmp_path, monkeypatch):
    """make translations on a master whose cell's Chinese changed: the English kept, marked fuzzy with the Chinese
    it was written from; --translated clears it; a new Chinese comment arrives in the template to translate?"""
    release_script()  # which puts scripts/ on sys.path, for its translations module
    import translations as words

    nb, real = raw_master(), words.CHAPTER.po("en").read_bytes()
    next(c for c in nb.cells if c.id == "s45-shape").source += "\n\n新的一句。"
    next(c for c in nb.cells if c.id == "demo-shape").source += "\nx = 1  # 新的注释"
    monkeypatch.setattr(words, "_master", lambda: nb)
    monkeypatch.setattr(words, "CHAPTER", words.Chapter(words.CHAPTER.name, str(tmp_path), words.CHAPTER.master))
    words.CHAPTER.po("en").parent.mkdir(parents=True)
    words.CHAPTER.po("en").write_bytes(real)
    _, missing = words.update_chapter(check=False)
    entry = next(m for m in words.read(words.CHAPTER.po("en"), "en") if m.context == "s45-shape")
    assert entry.fuzzy and entry.string == translation("en").prose["s45-shape"][1]
    assert entry.user_comments == [words.STALE + edition.fingerprint(cell_source(raw_master(), "s45-shape"))]
    assert any("demo-shape: 'x = 1  # 新的注释'" in line for line in missing["en"])  # its line, to translate
    assert edition.problems(nb, "en", words.chapter_translation("en"))
    words.mark_reviewed("en", ["s45-shape"])
    assert not [p for p in edition.problems(nb, "en", words.chapter_translation("en")) if "s45-shape" in p]
    with pytest.raises(SystemExit, match="no translated markdown cell setup"):
        words.mark_reviewed("en", ["setup"])


# ---------- everything else is the master's ----------

def test_is_everything_but_the_words_shared():
    """Same cells, ids, types, nbgrader metadata (points, grade ids, locks); the code differs only in comments and
    strings, except where CODE_THAT_DIFFERS says why?"""
    zh, en = master("zh"), master("en")
    assert [(c.id, c.cell_type, c.metadata.get("nbgrader")) for c in zh.cells] == \
           [(c.id, c.cell_type, c.metadata.get("nbgrader")) for c in en.cells]
    differs = [a.id for a, b in zip(zh.cells, en.cells)
               if a.cell_type == "code" and code_tokens(a.source) != code_tokens(b.source)]
    assert sorted(differs) == sorted(CODE_THAT_DIFFERS)


def test_does_a_change_to_code_or_to_a_test_reach_both_editions():
    """An edited line of code in a demo and in a test cell appears in the English with no second edit?"""
    nb = raw_master()
    demo = next(c for c in nb.cells if c.id == "lab1-experiment")
    demo.source = demo.source.replace("head_dim = 64", "head_dim = 32")
    test = next(c for c in nb.cells if c.id == "test2")
    test.source = test.source.replace("run(2, student_apply_mask)", "run(2, student_apply_mask, strict=True)")
    english = edition.translate(nb, "en", translation("en"))
    assert "head_dim = 32" in cell_source(english, "lab1-experiment")
    assert "run(2, student_apply_mask, strict=True)" in cell_source(english, "test2")
    assert edition.problems(nb, "en", translation("en")) == []  # nothing to translate again


TEST_CELLS = ("test1", "test2", "test3", "test4")


@pytest.mark.parametrize("lang", EDITIONS)
def test_does_each_test_cells_docstring_speak_its_editions_language_and_nothing_else_differ(lang):
    """Each test cell of the committed release opens with a one-line docstring in the edition's language (the
    Chinese one once read "Check that …" in the notebook and its feedback); below it, the same code in both
    editions, and the master's cell as released?"""
    for cell_id in TEST_CELLS:
        first, *code = cell_source(release(lang), cell_id).split("\n")
        assert first.startswith('"""') and first.endswith('"""') and len(first) > 6, first
        assert bool(edition.CJK.search(first)) == (lang == "zh") and first.startswith('"""检查 ' if lang == "zh"
                                                                                      else '"""Check that ')
        assert code == cell_source(release("zh"), cell_id).split("\n")[1:]
        assert cell_source(release(lang), cell_id) == cell_source(master(lang), cell_id)


def test_does_the_english_setup_cell_choose_english_once():
    """The English set-up cell calls use_language("en") right after importing attnkit; the Chinese one does not?"""
    lines = cell_source(master("en"), "setup").splitlines()
    assert lines[lines.index("import attnkit") + 1].startswith('attnkit.use_language("en")')
    assert sum("use_language" in line for line in lines) == 1
    assert "use_language" not in cell_source(master("zh"), "setup")


@pytest.mark.parametrize("lang", EDITIONS)
def test_does_each_edition_say_its_language(lang):
    """The English edition's metadata says "en" (metadata.edition.language); the Chinese one, as before, nothing,
    which reads as Chinese; the committed release agrees with the master?"""
    assert language.of_notebook(master(lang)) == language.of_notebook(release(lang)) == lang
    assert (language.NOTEBOOK_KEY in release(lang).metadata) == (lang != language.DEFAULT)


def test_is_the_glossary_cell_the_glossary():
    """The chapter's last cell is attnkit.glossary's table, in each edition's language?"""
    for lang in EDITIONS:
        assert master(lang).cells[-1].id == "glossary"
        assert master(lang).cells[-1].source == glossary.markdown(lang)


# ---------- Chinese in the English edition: only where it names the original lab ----------

def test_is_there_no_chinese_in_the_english_edition_but_the_labs_title():
    """Every cell of the English release and master: no CJK character except in the original lab's title, which
    the introduction names once?"""
    for nb in (master("en"), release("en")):
        text = "\n".join(c.source for c in nb.cells)
        assert edition.foreign_text(text) == []
        assert text.count(edition.ORIGINAL_LAB) == 1
        assert edition.ORIGINAL_LAB in cell_source(nb, "intro")


def test_is_the_exception_no_wider_than_the_title():
    """Control: the title's own characters elsewhere, or any other Chinese, still count?"""
    assert edition.foreign_text(f'"{edition.ORIGINAL_LAB}"') == []
    assert edition.foreign_text(f"{edition.ORIGINAL_LAB}: 多头") == ["多", "头"]
    assert edition.foreign_text("step3 多头自注意力 (" + "注意力)") == ["注", "意", "力"]
    assert edition.foreign_text("full-width punctuation，too") == ["，"]


# ---------- the release stubs ----------

def test_are_the_editions_stubs_the_ones_the_course_releases():
    """The course's config releases the chapter with its plug-in's stubs, stubs(lang) for a notebook of that
    language (so the Chinese release is as before); an assignment the config does not name keeps nbgrader's?"""
    import nbgrader.preprocessors
    from traitlets.config.loader import PyFileConfigLoader

    from coursekit.stubs import AssignmentStubs, text_stub

    config = PyFileConfigLoader("nbgrader_config.py", path=str(MASTER.parents[2])).load_config()
    assert AssignmentStubs in config.GenerateAssignment.preprocessors
    for lang in EDITIONS:
        nb = {"metadata": {"edition": {"language": lang}}}
        assert text_stub("ch04_attention", config, nb) == edition.stubs(lang)["text"]
    assert text_stub("ps1", config) == nbgrader.preprocessors.ClearSolutions().text_stub


@pytest.mark.parametrize("lang", EDITIONS)
def test_does_each_release_leave_its_own_stubs(lang):
    """Each edition's solution cells hold its stub: code stubs in the three functions and the practice exercises', text
    stubs in the 8 answers?"""
    solutions = [c for c in release(lang).cells if c.metadata.get("nbgrader", {}).get("solution")]
    code = [c for c in solutions if c.cell_type == "code"]
    first = edition.stubs(lang)["code"].splitlines()[0]  # the stub is indented as the solution was
    assert len(code) == 3 + len(EXERCISES) and all(f"{first}\n    pass" in c.source for c in code)
    assert [c.source for c in solutions if c.cell_type == "markdown"] == [edition.stubs(lang)["text"]] * 8


def test_does_an_unknown_language_fail_clearly():
    with pytest.raises(ValueError, match=r"language must be one of 'zh', 'en', got 'de'"):
        edition.translate(raw_master(), "de")


@pytest.mark.parametrize("english, pseudo_locale", [
    ("# row 0: only the last position blocked", "# ⟦řöŵ 0: öñļÿ ţĥë ļåŝţ pöŝïţïöñ bļöçķëd⟧"),
    ('print("exp(-1e9) is", x)', 'print("⟦ëxp(-1ë9) ïŝ⟧", x)'),
    ("mask value {name}:", "⟦måŝķ våļüë {name}:⟧"),  # a piece of an f-string, its value kept
    ('"""Check that it passes."""', '"""⟦Çĥëçķ ţĥåţ ïţ påŝŝëŝ.⟧"""'),  # a docstring's quotes stay three
])
def test_is_the_pseudo_locales_code_still_code_with_every_word_bracketed(english, pseudo_locale):
    assert edition.pseudo_code(english) == pseudo_locale


def test_is_the_pseudo_locales_prose_still_markdown_with_every_word_bracketed():
    """Headings stay headings, a table's cells are bracketed one by one, code spans, formulas, links' targets and
    code blocks are kept?"""
    english = ("### Task 2: implement `f`\n\nSee $QK^T$ and [the table](#t).\n\n| term | meaning |\n|---|---|\n"
               "```python\nx = 1  # as it is\n```")
    assert edition.pseudo_prose(english) == (
        "### ⟦Ţåŝķ 2: ïmpļëmëñţ ⟧`f`\n\n⟦Ŝëë ⟧$QK^T$⟦ åñd [ţĥë ţåbļë⟧](#t).\n\n|⟦ ţëřm ⟧|⟦ mëåñïñĝ ⟧|\n|---|---|\n"
        "```python\nx = 1  # as it is\n```")
