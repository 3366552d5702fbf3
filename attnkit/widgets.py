"""The sharpness explorer (§4.6): a front-end widget that computes and draws in the browser.

Python sends the seeded inputs once, :func:`attnkit.sharpness.raw_scores` (the unscaled q·k
at every head_dim, ``[N, 64, 64]`` float64, about 360 kB, as a binary buffer); the
browser (``attnkit/assets/sharpness.js`` for the numbers, ``explorer.js`` for the view)
scales, masks, takes the softmax and draws the figure on a canvas at the screen's
``devicePixelRatio``, one frame per move with no kernel round trip. It is an anywidget
(no build step, in JupyterLab, Notebook 7, VS Code, and in the static edition of the
chapter, ``make book``, which embeds its state and code). Python stays the source of
truth for the numbers: :meth:`SharpnessExplorer.measure` is what the browser shows, and
a test compares the two in Chromium.

The controls live in the browser and sync back (``head_dim``, ``scaled``, ``seq_len``,
``causal``); setting them from Python moves the view, and a new ``seed`` sends a new table.
Its words are the chapter's language (``lang``, default the notebook's): ``language`` and
``words`` (:func:`attnkit.sharpness.words`) go to the browser with the table.
Under nbgrader the chapter shows :func:`first_frame_png` (matplotlib, cached) instead,
through :func:`attnkit.figures.sharpness_explorer`.
"""
import functools
import pathlib
import re

import anywidget
import traitlets

from . import sharpness
from .language import SPOKEN, resolve

__all__ = ["SharpnessExplorer", "sharpness_explorer", "first_frame_png", "module_source"]

ASSETS = pathlib.Path(__file__).resolve().parent / "assets"
_IMPORT_NUMBERS = re.compile(r'^import \{[^}]*\} from "\./sharpness\.js";\n', re.MULTILINE)


@functools.lru_cache(maxsize=1)
def module_source() -> str:
    """``sharpness.js`` then ``explorer.js`` as one ES module (anywidget loads a single module)."""
    view, count = _IMPORT_NUMBERS.subn("", (ASSETS / "explorer.js").read_text(encoding="utf-8"))
    if count != 1:
        raise RuntimeError("explorer.js must import from ./sharpness.js exactly once")
    return (ASSETS / "sharpness.js").read_text(encoding="utf-8") + "\n" + view


def check_setting(head_dim: int, seq_len: int) -> None:
    """Caller-facing errors for values the explorer's sliders cannot show."""
    if head_dim not in sharpness.HEAD_DIMS:
        raise ValueError(f"head_dim must be a power of two from 1 to {sharpness.HEAD_DIMS[-1]}: head_dim={head_dim!r}")
    if not (isinstance(seq_len, int) and 2 <= seq_len <= sharpness.MAX_SEQ_LEN):
        raise ValueError(f"seq_len must be an integer from 2 to {sharpness.MAX_SEQ_LEN}: seq_len={seq_len!r}")


def table_bytes(seed: int) -> bytes:
    """:func:`attnkit.sharpness.raw_scores` for ``seed`` as little-endian float64 bytes."""
    return sharpness.raw_scores(seed).astype("<f8").tobytes()  # (N, 64, 64)


class SharpnessExplorer(anywidget.AnyWidget):
    """The live explorer; display it as a cell's value."""

    _esm = module_source()
    _css = (ASSETS / "explorer.css").read_text(encoding="utf-8")
    head_dims = traitlets.List(traitlets.Int(), default_value=list(sharpness.HEAD_DIMS)).tag(sync=True)
    max_seq_len = traitlets.Int(sharpness.MAX_SEQ_LEN).tag(sync=True)
    scores = traitlets.Bytes().tag(sync=True)  # raw_scores(seed): (N, 64, 64) float64
    head_dim = traitlets.Int(64).tag(sync=True)
    scaled = traitlets.Bool(False).tag(sync=True)
    seq_len = traitlets.Int(8).tag(sync=True)
    causal = traitlets.Bool(False).tag(sync=True)
    seed = traitlets.Int(0).tag(sync=True)
    language = traitlets.Enum(SPOKEN, "zh").tag(sync=True)  # the readout's sentence (sharpness.js summary)
    words = traitlets.Dict().tag(sync=True)  # titles, legends, labels, the readout: attnkit.sharpness.words

    def __init__(self, head_dim=64, scaled=False, seq_len=8, seed=0, causal=False, lang=None, **kwargs):
        check_setting(head_dim, seq_len)
        sharpness.random_qk(1, 1, seed)  # the seed's own check, before any widget exists
        lang = resolve(lang)
        super().__init__(head_dim=head_dim, scaled=scaled, seq_len=seq_len, seed=seed, causal=causal,
                         language=lang, words=sharpness.words(lang), scores=table_bytes(seed), **kwargs)

    @traitlets.validate("head_dim", "seq_len")
    def _valid_setting(self, proposal):
        setting = {"head_dim": self.head_dim, "seq_len": self.seq_len, proposal["trait"].name: proposal["value"]}
        try:
            check_setting(**setting)
        except ValueError as error:
            raise traitlets.TraitError(str(error)) from None
        return proposal["value"]

    @traitlets.observe("seed")
    def _new_table(self, change) -> None:
        self.scores = table_bytes(change["new"])

    def measure(self) -> sharpness.Sharpness:
        """What the view shows now, computed by :func:`attnkit.sharpness.measure` (the reference)."""
        return sharpness.measure(self.head_dim, scaled=self.scaled, seq_len=self.seq_len, seed=self.seed,
                                 causal=self.causal)

    def readout(self) -> str:
        """The readout the browser shows now, in the explorer's language (attnkit.sharpness.summary)."""
        return sharpness.summary(self.measure(), self.language)


def sharpness_explorer(head_dim=64, scaled=False, seq_len=8, seed=0, causal=False, lang=None) -> SharpnessExplorer:
    """Return the live explorer (display it as a cell's value)."""
    return SharpnessExplorer(head_dim, scaled, seq_len, seed, causal, lang)


def first_frame_png(head_dim=64, scaled=False, seq_len=8, seed=0, causal=False, lang=None) -> bytes:
    """The explorer's figure for these settings as a titled matplotlib PNG (shown under grading); no widget."""
    from .sharpness_plot import ExplorerFigure  # matplotlib only here

    m = sharpness.measure(head_dim, scaled=scaled, seq_len=seq_len, seed=seed, causal=causal)
    curves = {s: sharpness.curve(scaled=s, seq_len=seq_len, seed=seed, causal=causal) for s in (False, True)}
    return ExplorerFigure(m, curves, title=True, lang=lang).png()
