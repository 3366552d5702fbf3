"""Is there one glossary, in the standard English terms, and do the English chapter and diagnosis keep to it?"""
import re

import pytest

from attnkit import glossary
from support.editions import CJK, master

# The terms the issue names as the standard ones, and the glossary's keys for them.
STANDARD = {"query": "query", "key": "key", "value": "value", "sdpa": "scaled dot-product attention",
            "causal_mask": "causal mask", "head_dim": "head dimension"}


def prose(lang: str) -> str:
    """The edition's text without the glossary cell (which would find every term in itself)."""
    return "\n".join(c.source for c in master(lang).cells if c.id != "glossary")


def test_are_the_standard_terms_the_glossarys():
    assert {key: glossary.term(key, "en") for key in STANDARD} == STANDARD


@pytest.mark.parametrize("term", glossary.TERMS, ids=lambda t: t.key)
def test_does_the_english_chapter_use_each_term(term):
    """Each glossary term appears in the English chapter's own text, as the glossary spells it?"""
    assert re.search(rf"\b{re.escape(term.name('en'))}", prose("en"), re.IGNORECASE), term.name("en")


def test_does_the_english_chapter_avoid_the_words_the_glossary_rules_out():
    """No 'look-ahead mask', 'head size' … anywhere in the English edition?"""
    text = prose("en").lower()
    assert [w for t in glossary.TERMS for w in t.avoid if w in text] == []


def test_would_an_avoided_word_be_caught():
    """Control: the same search finds a term written another way."""
    text = "the look-ahead mask hides the future".lower()
    assert [w for t in glossary.TERMS for w in t.avoid if w in text] == ["look-ahead mask"]


def test_one_entry_per_concept_and_no_chinese_in_the_english():
    keys = [t.key for t in glossary.TERMS]
    assert len(keys) == len(set(keys)) and len({t.name("en") for t in glossary.TERMS}) == len(keys)
    assert not CJK.search(glossary.markdown("en"))
    assert all(t.name("zh") in glossary.markdown("zh") and t.name("en") in glossary.markdown("zh")
               for t in glossary.TERMS)


# ---------- the Chinese prose introduces each term before it uses it ----------

# How a term is found in the Chinese prose where searching for its words would find other words too: 键 in 关键,
# 值 in 数值 or 值得, 头 in 回头 or 开头, 权重 in 权重矩阵 (a weight matrix, not attention weights). 多头 and 单头
# name the chapter's topic (its title) and count as uses of 多头注意力, not of 头.
ZH_PATTERN = {
    "key": r"(?<!关)键",
    "value": r"(?<![数均大小峰对测])值(?!得)",
    "head": r"(?<![回开大多单逐许])头(?!维度)",
    "weights": r"权重(?!矩阵)",
}


def zh_pattern(term: glossary.Term) -> str:
    return ZH_PATTERN.get(term.key, re.escape(re.sub(r"（.*）$", "", term.name("zh"))))


def chinese_prose() -> str:
    """The Chinese edition's prose in reading order, after its opening (the intro cell's table of sections and
    4.2's list of goals name what is to come) and without the glossary itself."""
    text = "\n".join(c.source for c in master("zh").cells if c.cell_type == "markdown" and c.id not in ("intro", "glossary"))
    return text[:text.index("## 4.2 ")] + text[text.index("## 4.3 "):]


def introduced(text: str, start: int, end: int) -> bool:
    """Is the term at ``text[start:end]`` introduced there: bold, in 「」, followed by a gloss in （）, or in the
    heading of the section that explains it?"""
    before, after = text[max(0, start - 2):start], text[end:end + 4]
    heading = text[text.rfind("\n", 0, start) + 1:start].startswith("#")
    return heading or before.endswith(("**", "「")) or after.lstrip("*」").startswith("（")


def first_uses(text: str) -> list:
    """(position, term key, introduced there?) of each glossary term's first use, in reading order."""
    found = []
    for term in glossary.TERMS:
        match = re.search(zh_pattern(term), text)
        assert match, f"the Chinese prose never uses {term.name('zh')}"
        found.append((match.start(), term.key, introduced(text, match.start(), match.end())))
    return sorted(found)


def test_is_each_term_introduced_where_the_chinese_prose_first_uses_it():
    """Term by term, in the order they first appear: each first use is its introduction (探针 in 4.9, before the
    diagnosis uses it; 视图 in 4.5 …), never a use before the term was explained?"""
    uses = first_uses(chinese_prose())
    assert len(uses) == len(glossary.TERMS)
    assert [key for _, key, ok in uses if not ok] == []
    order = [key for _, key, _ in uses]
    assert order.index("probe") < order.index("table") and order.index("view") < order.index("in_place")


def test_would_a_term_used_before_its_introduction_be_caught():
    """Control: 探针 used in 4.3, before 4.9 introduces it, is reported; so is a term never glossed at all?"""
    text = chinese_prose().replace("听起来是个大模块", "先用探针试一试。听起来是个大模块", 1)
    assert [key for _, key, ok in first_uses(text) if not ok] == ["probe"]
    assert not introduced("它是一个探针。", 4, 6) and introduced("叫作**探针**（probe）", 4, 6)
    assert introduced("### 探针\n", 4, 6) and not introduced("### 诊断\n它用探针", 10, 12)
