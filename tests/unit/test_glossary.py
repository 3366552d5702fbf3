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
    assert re.search(rf"\b{re.escape(term.en)}", prose("en"), re.IGNORECASE), term.en


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
    assert len(keys) == len(set(keys)) and len({t.en for t in glossary.TERMS}) == len(keys)
    assert not CJK.search(glossary.markdown("en"))
    assert all(t.zh in glossary.markdown("zh") and t.en in glossary.markdown("zh") for t in glossary.TERMS)
