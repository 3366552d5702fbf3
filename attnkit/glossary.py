"""The chapter's terms in both languages: one table, used by the chapter and by the diagnosis.

Each :class:`Term` gives the Chinese the chapter uses, the standard English term (the one papers
and libraries use: query/key/value, scaled dot-product attention, causal mask, head dimension),
a one-line meaning in each language, and English words a writer might reach for instead that
the English edition must not use (``avoid``). The chapter's last cell is :func:`markdown` in the
edition's language (written into the master by ``make release``); the diagnosis takes its words
from :func:`term`; tests/unit/test_glossary.py holds both editions and every diagnosis message
to the table. Standard library only.
"""
from dataclasses import dataclass

from .language import resolve

__all__ = ["Term", "TERMS", "term", "markdown", "HEADING"]


@dataclass(frozen=True)
class Term:
    key: str
    zh: str
    en: str
    meaning_zh: str
    meaning_en: str
    avoid: tuple = ()  # English words for the same thing that the English texts must not use

    def name(self, lang: str) -> str:
        return self.zh if lang == "zh" else self.en


TERMS = (
    Term("query", "查询", "query", "当前位置想找什么：`Q` 的一行", "what a position is looking for: one row of `Q`"),
    Term("key", "键", "key", "每个位置拿来被比对的向量：`K` 的一行（4.4 节也叫它「标签」）",
         "what each position offers to be matched against: one row of `K`", ("tag vector",)),
    Term("value", "值", "value", "每个位置被读走的内容：`V` 的一行", "what a position hands over when it is read: one row of `V`"),
    Term("scores", "分数（注意力分数）", "attention scores",
         "`scale · Q @ K^T`，`[seq_q, seq_k]`：位置 i 有多想看位置 j",
         "`scale · Q @ K^T`, `[seq_q, seq_k]`: how much position i wants to look at position j",
         ("attention logits",)),
    Term("weights", "权重（注意力权重）", "attention weights", "分数经过掩码和 softmax 之后，每行和为 1",
         "the scores after the mask and softmax; each row sums to 1", ("attention probabilities",)),
    Term("permutation_equivariance", "置换等变", "permutation equivariance",
         "打乱输入的行，输出的行按同样的方式打乱、内容不变：不加掩码、没有位置信息时的自注意力",
         "shuffle the input rows and the output rows are shuffled the same way, each unchanged: self-attention "
         "with no mask and no position information"),
    Term("sdpa", "缩放点积注意力", "scaled dot-product attention", "`softmax(Q @ K^T / sqrt(head_dim) + M) @ V`",
         "`softmax(Q @ K^T / sqrt(head_dim) + M) @ V`", ("scaled dot product attention",)),
    Term("scale", "缩放因子", "scale factor", "`1 / sqrt(head_dim)`：让分数的标准差保持在 1 附近",
         "`1 / sqrt(head_dim)`: keeps the scores' standard deviation near 1", ("temperature factor",)),
    Term("head", "头", "head", "一套独立的 Q、K、V，占 `hidden_dim` 中的 `head_dim` 列",
         "one independent set of Q, K, V, taking `head_dim` of the `hidden_dim` columns"),
    Term("head_dim", "头维度", "head dimension", "`hidden_dim / num_heads`：一个头的 Q、K、V 的列数",
         "`hidden_dim / num_heads`: the number of columns of one head's Q, K and V", ("head size",)),
    Term("multihead", "多头注意力", "multi-head attention", "几个头并行做同一套计算，输出拼起来再乘 `W_o`",
         "several heads doing the same computation side by side, outputs joined and multiplied by `W_o`",
         ("multi-headed attention",)),
    Term("cross_attention", "交叉注意力", "cross-attention", "查询来自一个序列，键和值来自另一个序列",
         "queries from one sequence, keys and values from another", ("encoder-decoder attention",)),
    Term("causal_mask", "因果掩码", "causal mask", "位置 i 只能看 `j ≤ i`：未来的格子加 `-1e9`",
         "position i may only look at `j ≤ i`: the future cells get `-1e9`",
         ("look-ahead mask", "future mask", "triangular mask")),
    Term("padding_mask", "padding 掩码", "padding mask", "填充位置的列加 `-1e9`：谁都不看它们",
         "the columns of padding positions get `-1e9`: nobody looks at them"),
    Term("additive_mask", "加性掩码", "additive mask", "加到分数上：`0` 保留，`-1e9` 屏蔽",
         "added to the scores: `0` keeps a cell, `-1e9` blocks it", ("multiplicative mask",)),
    Term("masked_row", "整行被屏蔽", "fully masked row", "一行里所有位置都被屏蔽：`-inf` 得 NaN，`-1e9` 得有限值",
         "a row in which every position is blocked: `-inf` gives NaN, `-1e9` a finite row"),
    Term("stable_softmax", "数值稳定的 softmax", "numerically stable softmax", "先减去每行最大值再 `exp`：不上溢",
         "subtract each row's maximum before `exp`: nothing overflows", ("safe softmax",)),
    Term("in_place", "原地写入", "in place", "写进调用方传入的数组，而不是返回新数组",
         "written into the array the caller passed, not returned as a new one"),
    Term("view", "视图", "view",
         "换一种方式读同一块内存，不复制数据：`K.T`、`transpose`；`reshape` 只在内存排列允许时是视图"
         "（多头的拆分是，`transpose` 之后的合并不是，要复制一份）",
         "the same memory read another way, with no data copied: `K.T`, `transpose`; `reshape` only when the "
         "memory layout allows it (splitting into heads is a view, merging them after a `transpose` copies)"),
    Term("probe", "探针", "probe", "诊断喂给函数的一组输入，verify 没有用到",
         "an input the diagnosis feeds a function, one verify never uses"),
    Term("hidden_checks", "隐藏检查", "hidden checks", "提交后评分时追加的检查", "the checks added when a submission is graded"),
    Term("table", "排查表", "troubleshooting table", "4.10 节：现象 → verify 的 FAIL 行 → 原因 → 先检查什么",
         "§4.10: symptom → verify's FAIL lines → cause → what to check first"),
)

_BY_KEY = {t.key: t for t in TERMS}
HEADING = {"zh": "## 本章术语", "en": "## Terms used in this chapter"}
_HEAD = {"zh": "| 中文 | English | 含义 |\n|---|---|---|", "en": "| term | meaning |\n|---|---|"}
_LEAD = {
    "zh": "本章用到的术语，和英文文献里的标准说法对照（自动诊断的提示也用这些词）：",
    "en": "The terms this chapter uses, as papers and libraries use them (the diagnosis uses the same words):",
}


def term(key: str, lang: str | None = None) -> str:
    """The chapter's word for ``key`` in ``lang`` (the notebook's language by default)."""
    return _BY_KEY[key].name(resolve(lang))


def _row(t: Term, lang: str) -> str:
    if lang == "zh":
        return f"| {t.zh} | {t.en} | {t.meaning_zh} |"
    return f"| {t.en} | {t.meaning_en} |"


def markdown(lang: str | None = None) -> str:
    """The glossary cell of the chapter: a heading, one line of lead-in and the table."""
    lang = resolve(lang)
    rows = "\n".join(_row(t, lang) for t in TERMS)
    return f"{HEADING[lang]}\n\n{_LEAD[lang]}\n\n{_HEAD[lang]}\n{rows}"
