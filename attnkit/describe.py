"""Every figure in words and numbers: its text alternative, made from the data it draws (numpy only).

A reader who cannot see a heatmap gets what a sighted reader takes from it: what it shows, then what matters in it
("Attention weights, 4 × 4, causal mask: each row's largest weight is on its own position; row 3 spreads
0.41 / 0.33 / 0.26; every row sums to 1"), and every number as a table a screen reader walks cell by cell.
:func:`figure` picks the words for each of the chapter's figures by the name :mod:`attnkit.figures` draws it under;
:func:`figure_html` puts the picture, its text alternative (``alt``) and its tables (in a ``<details>``) into one
HTML fragment, which the notebook shows (JupyterLab, the static book, the feedback page) in place of a bare PNG.
Every word is the chapter's language (``lang``; the catalogue's ``describe.*`` messages).

Shape legend: ``T`` rows (queries), ``S`` columns (keys), ``H`` heads.
"""
import base64
import html
from dataclasses import dataclass

import numpy as np

from .language import WORDS, marked, resolve
from .masks import MASKED_BELOW

__all__ = ["Table", "Description", "cell_text", "matrix_table", "weights_sentence", "figure", "deviation", "explorer",
           "figure_html"]

LISTED = 4  # a spread row's weights said one by one, the largest first; the rest left to the table
PEAKS_LISTED = 8  # rows whose largest weight is said one by one (the explorer's 64 are left to its table)


@dataclass(frozen=True)
class Table:
    """Numbers a screen reader reads by row and column: a caption, the column headers, ``(row header, cells)``."""
    caption: str
    corner: str
    columns: tuple
    rows: tuple


@dataclass(frozen=True)
class Description:
    """A figure's text alternative: ``text`` says what it shows and what matters; ``tables`` hold its numbers."""
    text: str
    tables: tuple


def cell_text(value: float, fmt: str = "{:.2f}") -> str:
    """A matrix value as a heatmap writes it in its cell: ``−1e9`` and ``−∞`` for masked cells, ``NaN``."""
    if np.isnan(value):
        return "NaN"
    if value == -np.inf:
        return "−∞"
    if value <= MASKED_BELOW:
        return f"{value:.0e}".replace("e+0", "e").replace("-", "−")  # -1e9
    return fmt.format(value)


def _labels(size: int, tokens, lang: str, rows: bool) -> list:
    """Each row's (or column's) name: its token in quotes when labelled, else its index."""
    if tokens is not None:
        return [WORDS.say(lang, "describe.token", token=str(token)) for token in tokens]
    return [WORDS.say(lang, "describe.row", index=i) if rows else WORDS.say(lang, "describe.key", index=i)
            for i in range(size)]


def matrix_table(matrix, caption: str, lang: str, tokens=None) -> Table:
    """A ``[T, S]`` matrix as a :class:`Table`, each cell as its heatmap writes it; ``tokens`` name rows and columns."""
    matrix = np.asarray(matrix, dtype=np.float64)  # (T, S)
    rows = _labels(matrix.shape[0], tokens, lang, rows=True)
    columns = _labels(matrix.shape[1], tokens, lang, rows=False)
    return Table(caption, WORDS.say(lang, "describe.corner"), tuple(columns),
                 tuple((row, tuple(cell_text(v) for v in values)) for row, values in zip(rows, matrix)))


def _sentences(lang: str, sentences) -> str:
    return " ".join(sentences)  # a space after "。" too: screen readers pause at the full stop either way


def _sentence(lang: str, clauses) -> str:
    joined = WORDS.say(lang, "describe.separator").join(c for c in clauses if c)
    return WORDS.say(lang, "describe.sentence", clauses=joined)


def _mask_clause(blocked: np.ndarray, lang: str) -> str:
    rows, cols = blocked.shape
    if not blocked.any():
        return ""
    if rows == cols and np.array_equal(blocked, np.triu(np.ones_like(blocked), 1)):
        return WORDS.say(lang, "describe.causal")
    return WORDS.say(lang, "describe.masked_cells", n=int(blocked.sum()), total=blocked.size)


def _peaks_clause(weights: np.ndarray, shown: np.ndarray, rows: list, cols: list, lang: str) -> str:
    """Where each row's largest weight is: on its own position, on the first key, or row by row."""
    finite = shown & np.isfinite(weights)
    live = finite.any(axis=1)  # rows with something to compare
    peak = np.where(finite, weights, -np.inf).argmax(axis=1)  # (T,)
    if not live.any():
        return ""
    if weights.shape[0] == weights.shape[1] and np.all(peak[live] == np.arange(weights.shape[0])[live]):
        return WORDS.say(lang, "describe.own_position")
    if np.all(peak[live] == 0) and live.sum() > 1:
        return WORDS.say(lang, "describe.first_key")
    said = [WORDS.say(lang, "describe.peak", row=rows[i], key=cols[peak[i]], weight=cell_text(weights[i, peak[i]]))
            for i in np.flatnonzero(live)]
    comma = WORDS.say(lang, "describe.comma")
    listed = comma.join(said[:PEAKS_LISTED]) + (comma + "…" if len(said) > PEAKS_LISTED else "")
    return WORDS.say(lang, "describe.peaks", peaks=listed)


def _spread_clause(weights: np.ndarray, shown: np.ndarray, rows: list, lang: str) -> str:
    """The flattest row (the highest entropy among rows with two visible keys or more), its weights largest first."""
    visible = shown & np.isfinite(weights) & (weights > 0)
    candidates = np.flatnonzero(visible.sum(axis=1) >= 2)
    if candidates.size == 0:
        return ""
    logs = np.log(np.where(visible, weights, 1.0))
    entropy = -(np.where(visible, weights, 0.0) * logs).sum(axis=1)  # (T,)
    row = candidates[np.argmax(entropy[candidates])]
    values = np.sort(weights[row][visible[row]])[::-1]  # largest first
    said = " / ".join(cell_text(v) for v in values[:LISTED]) + (" / …" if values.size > LISTED else "")
    return WORDS.say(lang, "describe.spread", row=rows[row], weights=said)


def _sums_clause(weights: np.ndarray, lang: str) -> str:
    sums = weights.sum(axis=1)  # (T,) NaN for a NaN row
    nan_rows = np.flatnonzero(np.isnan(sums))
    clauses = []
    finite = sums[np.isfinite(sums)]
    if finite.size and np.allclose(finite, 1.0, atol=1e-3):
        clauses.append(WORDS.say(lang, "describe.sums_one"))
    elif finite.size:
        clauses.append(WORDS.say(lang, "describe.sums", low=cell_text(finite.min()), high=cell_text(finite.max())))
    if nan_rows.size:
        clauses.append(WORDS.say(lang, "describe.nan_rows",
                                 rows=WORDS.say(lang, "describe.comma").join(str(i) for i in nan_rows)))
    return WORDS.say(lang, "describe.separator").join(clauses)


def _head(title: str, shape: tuple, lang: str, sized: bool) -> str:
    """A panel's name, with its size unless the figure's first sentence said it for every panel."""
    if not sized:
        return title
    return WORDS.say(lang, "describe.heatmap", title=title, rows=shape[0], cols=shape[1])


def weights_sentence(weights, title: str, lang: str | None = None, blocked=None, tokens=None, sized=True) -> str:
    """One attention-weights heatmap in words: its size and mask, where each row's largest weight is, the flattest
    row, and what the rows sum to. ``blocked`` (bool ``[T, S]``) marks cells a mask blocked."""
    lang = resolve(lang)
    weights = np.asarray(weights, dtype=np.float64)  # (T, S)
    blocked = np.zeros(weights.shape, bool) if blocked is None else np.asarray(blocked, bool)
    rows = _labels(weights.shape[0], tokens, lang, rows=True)
    cols = _labels(weights.shape[1], tokens, lang, rows=False)
    shown = ~blocked
    return _sentence(lang, [_head(title, weights.shape, lang, sized), _mask_clause(blocked, lang),
                            _peaks_clause(weights, shown, rows, cols, lang),
                            _spread_clause(weights, shown, rows, lang), _sums_clause(weights, lang)])


def _range_clause(values: np.ndarray, lang: str) -> str:
    finite = values[np.isfinite(values) & (values > MASKED_BELOW)]
    if finite.size == 0:
        return ""
    low, high = cell_text(finite.min()), cell_text(finite.max())
    if low == high:
        return WORDS.say(lang, "describe.rest", value=low)
    return WORDS.say(lang, "describe.range", low=low, high=high)


def _values_sentence(matrix: np.ndarray, title: str, lang: str, sized: bool) -> str:
    """A matrix that is not a set of weights (scores, a mask): its size, what is blocked, the range of the rest."""
    blocked = matrix <= MASKED_BELOW
    head = _head(title, matrix.shape, lang, sized)
    pattern = _mask_clause(blocked, lang)
    held = ""
    if blocked.any():
        held = WORDS.say(lang, "describe.blocked", n=int(blocked.sum()), value=cell_text(matrix[blocked][0]))
    return _sentence(lang, [head, pattern, held, _range_clause(matrix, lang)])


def _looks_like_weights(matrix: np.ndarray) -> bool:
    finite = matrix[np.isfinite(matrix)]
    return finite.size > 0 and finite.min() >= 0 and finite.max() <= 1


def _flat(title: str) -> str:
    return " ".join(str(title).split())  # a figure's two-line titles, on one line


def _panel(matrix, title: str, lang: str, tokens=None, blocked=None, weights: bool | None = None,
           sized: bool = False) -> tuple:
    """(sentence, table) of one heatmap panel; its size said only when ``sized`` (the figure's intro says it)."""
    matrix = np.asarray(matrix, dtype=np.float64)
    title = _flat(title)
    is_weights = _looks_like_weights(matrix) if weights is None else weights
    text = (weights_sentence(matrix, title, lang, blocked, tokens, sized) if is_weights
            else _values_sentence(matrix, title, lang, sized))
    return text, matrix_table(matrix, title, lang, tokens)


def _pipeline(params: dict, lang: str) -> Description:
    from .attention import add_mask, softmax  # the figure's own defaults (attnkit.plotting.pipeline)

    scores, mask, tokens = (np.asarray(params["scores"], np.float64), np.asarray(params["mask"], np.float64),
                            params.get("tokens"))
    masked = add_mask(scores, mask)  # (T, S)
    weights = softmax(masked)  # (T, S)
    blocked = mask <= MASKED_BELOW
    titles = [WORDS.say(lang, msgid) for msgid in (
        marked("describe.pipeline_scores"), marked("describe.pipeline_mask"), marked("describe.pipeline_masked"),
        marked("describe.pipeline_weights"))]
    panels = [_panel(scores, titles[0], lang, tokens, weights=False),
              _panel(mask, titles[1], lang, tokens, weights=False),
              _panel(masked, titles[2], lang, tokens, weights=False),
              _panel(weights, titles[3], lang, tokens, blocked=blocked, weights=True)]
    intro = WORDS.say(lang, "describe.pipeline", rows=scores.shape[0], cols=scores.shape[1])
    return Description(_sentences(lang, [intro, *(text for text, _ in panels)]), tuple(table for _, table in panels))


def _wrong_order(params: dict, lang: str) -> Description:
    from .attention import add_mask, softmax

    scores, mask, tokens = (np.asarray(params["scores"], np.float64), np.asarray(params["mask"], np.float64),
                            params.get("tokens"))
    future = mask <= MASKED_BELOW  # (T, S)
    first = softmax(scores)  # (T, S)
    zeroed = np.where(future, 0.0, first)
    right = softmax(add_mask(scores, mask))
    titles = [WORDS.say(lang, msgid) for msgid in (marked("describe.wrong_first"), marked("describe.wrong_zeroed"),
                                                   marked("describe.wrong_right"))]
    panels = [_panel(first, titles[0], lang, tokens, weights=True),
              _panel(zeroed, titles[1], lang, tokens, weights=True),
              _panel(right, titles[2], lang, tokens, blocked=future, weights=True)]
    intro = WORDS.say(lang, "describe.wrong_order")
    return Description(_sentences(lang, [intro, *(text for text, _ in panels)]), tuple(table for _, table in panels))


def _heatmap_row(params: dict, lang: str) -> Description:
    matrices = params["matrices"]
    panels = [_panel(matrix, title, lang, sized=True) for title, matrix in matrices.items()]
    intro = WORDS.say(lang, "describe.side_by_side", n=len(panels), titles=" | ".join(_flat(t) for t in matrices))
    return Description(_sentences(lang, [intro, *(text for text, _ in panels)]), tuple(table for _, table in panels))


def _head_grid(params: dict, lang: str) -> Description:
    weights = np.asarray(params["weights"], np.float64)  # (H, T, S)
    tokens, mask = params.get("tokens"), params.get("mask")
    blocked = None if mask is None else np.asarray(mask, np.float64) <= MASKED_BELOW
    panels = [_panel(w, WORDS.say(lang, "describe.head", h=h), lang, tokens, blocked=blocked, weights=True)
              for h, w in enumerate(weights)]
    intro = WORDS.say(lang, "describe.heads", heads=weights.shape[0], rows=weights.shape[1], cols=weights.shape[2])
    return Description(_sentences(lang, [intro, *(text for text, _ in panels)]), tuple(table for _, table in panels))


def deviation(gap, title: str, lang: str | None = None) -> Description:
    """The diagnosis heatmap (``|student − reference|``, :mod:`attnkit.diagnose_plot`) in words: where the largest gap
    is, how many cells differ, how many are NaN or inf."""
    lang = resolve(lang)
    gap = np.asarray(gap, dtype=np.float64)  # (T, S), NaN where either side was not finite
    title = _flat(title)
    rows, cols = _labels(gap.shape[0], None, lang, rows=True), _labels(gap.shape[1], None, lang, rows=False)
    clauses = [WORDS.say(lang, "describe.heatmap", title=title, rows=gap.shape[0], cols=gap.shape[1])]
    if np.any(np.isfinite(gap)):
        i, j = np.unravel_index(np.nanargmax(gap), gap.shape)
        largest = f"{gap[i, j]:.2g}"
        clauses.append(WORDS.say(lang, "describe.largest_gap", gap=largest, row=rows[i], key=cols[j]))
        clauses.append(WORDS.say(lang, "describe.differ", n=int(np.sum(gap > 0)), total=gap.size))
    if np.isnan(gap).any():
        clauses.append(WORDS.say(lang, "describe.not_finite", n=int(np.isnan(gap).sum())))
    return Description(_sentence(lang, clauses), (matrix_table(gap, title, lang),))


def explorer(m, summary: str, lang: str | None = None) -> Description:
    """The sharpness explorer's figure (:class:`attnkit.sharpness.Sharpness` ``m``) in words: its readout
    (:func:`attnkit.sharpness.summary`), then each row's largest weight, where it is and how spread the row is."""
    lang = resolve(lang)
    weights = np.where(m.visible, m.weights, -np.inf)  # (T, T)
    keys = _labels(weights.shape[1], None, lang, rows=False)
    table = Table(WORDS.say(lang, "describe.explorer_rows"), WORDS.say(lang, "describe.corner"),
                  (WORDS.say(lang, "describe.largest"), WORDS.say(lang, "describe.at"),
                   WORDS.say(lang, "describe.entropy")),
                  tuple((WORDS.say(lang, "describe.row", index=i),
                         (cell_text(m.row_max[i]), keys[int(np.argmax(weights[i]))], cell_text(fraction)))
                        for i, fraction in enumerate(m.row_entropy_fraction)))
    shown = np.asarray(m.visible, bool)
    rows = _labels(weights.shape[0], None, lang, rows=True)
    text = _sentence(lang, [summary, _peaks_clause(m.weights, shown, rows, keys, lang),
                            _spread_clause(m.weights, shown, rows, lang)])
    return Description(text, (table,))


_FIGURES = {"pipeline": _pipeline, "wrong_order": _wrong_order, "heatmap_row": _heatmap_row, "head_grid": _head_grid}


def figure(name: str, params: dict, lang: str | None = None) -> Description:
    """The text alternative of the chapter's figure ``name`` (:mod:`attnkit.figures`' names) drawn from ``params``."""
    if name not in _FIGURES:
        raise ValueError(f"no words for a figure named {name!r}: expected one of {', '.join(_FIGURES)}")
    return _FIGURES[name](params, resolve(lang))


def _table_html(table: Table) -> str:
    head = "".join(f'<th scope="col">{html.escape(c)}</th>' for c in table.columns)
    body = "".join(f'<tr><th scope="row">{html.escape(row)}</th>' + "".join(f"<td>{html.escape(c)}</td>" for c in cells)
                   + "</tr>" for row, cells in table.rows)
    return (f"<table><caption>{html.escape(table.caption)}</caption><thead><tr><th scope=\"col\">"
            f"{html.escape(table.corner)}</th>{head}</tr></thead><tbody>{body}</tbody></table>")


def figure_html(png: bytes, description: Description, lang: str | None = None) -> str:
    """The picture with its text alternative as ``alt``, and below it, folded, the same words and every number."""
    lang = resolve(lang)
    source = base64.b64encode(png).decode("ascii")
    tables = "".join(_table_html(t) for t in description.tables)
    text, summary = html.escape(description.text), html.escape(WORDS.say(lang, "describe.numbers"))
    return (f'<figure class="attn-described" style="margin:0"><img src="data:image/png;base64,{source}" alt="{text}">'
            f"<figcaption><details><summary>{summary}</summary><p>{text}</p>"
            f"{tables}</details></figcaption></figure>")
