"""The chapter"s terms: one table, used by the chapter and by the diagnosis; their words in attnkit"s catalogue.

Each :class:`Term` names a message of attnkit"s catalogue (``glossary.<key>``): in Chinese the word the chapter
uses, in English the standard term (the one papers and libraries use: query/key/value, scaled dot-product attention,
causal mask, head dimension); a one-line meaning in each language (``glossary.<key>.meaning``), and English words a
writer might reach for instead that the English edition must not use (``avoid``). The chapter"s last cell is
:func:`markdown` in the edition"s language (written into the master by ``make release``); the diagnosis uses the same
words; tests/unit/test_glossary.py holds both editions and every diagnosis message to the table. Standard library only.
"""
from dataclasses import dataclass

from .language import PSEUDO, WORDS, marked, resolve

__all__ = ["Term", "TERMS", "term", "markdown", "STANDARD_LANGUAGE"]

STANDARD_LANGUAGE = "en"  # the language of the standard terms, which the other editions" tables name beside theirs


@dataclass(frozen=True)
class Term:
    key: str
    word: str     # the message id of the term itself
    meant: str    # the message id of its one-line meaning
    avoid: tuple = ()  # English words for the same thing that the English texts must not use

    def name(self, lang: str) -> str:
        return WORDS.say(lang, self.word)

    def meaning(self, lang: str) -> str:
        return WORDS.say(lang, self.meant)


TERMS = (
    Term("query", marked("glossary.query"), marked("glossary.query.meaning")),
    Term("key", marked("glossary.key"), marked("glossary.key.meaning"), ("tag vector",)),
    Term("value", marked("glossary.value"), marked("glossary.value.meaning")),
    Term("scores", marked("glossary.scores"), marked("glossary.scores.meaning"), ("attention logits",)),
    Term("weights", marked("glossary.weights"), marked("glossary.weights.meaning"), ("attention probabilities",)),
    Term("permutation_equivariance", marked("glossary.permutation_equivariance"),
         marked("glossary.permutation_equivariance.meaning")),
    Term("sdpa", marked("glossary.sdpa"), marked("glossary.sdpa.meaning"), ("scaled dot product attention",)),
    Term("scale", marked("glossary.scale"), marked("glossary.scale.meaning"), ("temperature factor",)),
    Term("head", marked("glossary.head"), marked("glossary.head.meaning")),
    Term("head_dim", marked("glossary.head_dim"), marked("glossary.head_dim.meaning"), ("head size",)),
    Term("multihead", marked("glossary.multihead"), marked("glossary.multihead.meaning"), ("multi-headed attention",)),
    Term("cross_attention", marked("glossary.cross_attention"),
         marked("glossary.cross_attention.meaning"), ("encoder-decoder attention",)),
    Term("causal_mask", marked("glossary.causal_mask"),
         marked("glossary.causal_mask.meaning"), ("look-ahead mask", "future mask", "triangular mask")),
    Term("padding_mask", marked("glossary.padding_mask"), marked("glossary.padding_mask.meaning")),
    Term("additive_mask", marked("glossary.additive_mask"),
         marked("glossary.additive_mask.meaning"), ("multiplicative mask",)),
    Term("masked_row", marked("glossary.masked_row"), marked("glossary.masked_row.meaning")),
    Term("stable_softmax", marked("glossary.stable_softmax"),
         marked("glossary.stable_softmax.meaning"), ("safe softmax",)),
    Term("in_place", marked("glossary.in_place"), marked("glossary.in_place.meaning")),
    Term("view", marked("glossary.view"), marked("glossary.view.meaning")),
    Term("probe", marked("glossary.probe"), marked("glossary.probe.meaning")),
    Term("hidden_checks", marked("glossary.hidden_checks"), marked("glossary.hidden_checks.meaning")),
    Term("table", marked("glossary.table"), marked("glossary.table.meaning")),
)

_BY_KEY = {t.key: t for t in TERMS}


def term(key: str, lang: str | None = None) -> str:
    """The chapter"s word for ``key`` in ``lang`` (the notebook"s language by default)."""
    return _BY_KEY[key].name(resolve(lang))


def _row(t: Term, lang: str) -> str:
    """A row of the table: the term, the standard (English) term beside it in another language, its meaning (the
    pseudo-locale, the English's words made pseudo, has the English's two columns)."""
    standard = [] if lang in (STANDARD_LANGUAGE, PSEUDO) else [t.name(STANDARD_LANGUAGE)]
    return "| " + " | ".join([t.name(lang), *standard, t.meaning(lang)]) + " |"


def markdown(lang: str | None = None) -> str:
    """The glossary cell of the chapter: a heading, one line of lead-in and the table."""
    lang = resolve(lang)
    rows = "\n".join(_row(t, lang) for t in TERMS)
    heading, lead, head = (WORDS.say(lang, "glossary.heading"), WORDS.say(lang, "glossary.lead"),
                           WORDS.say(lang, "glossary.table_head"))
    return f"{heading}\n\n{lead}\n\n{head}\n{rows}"
