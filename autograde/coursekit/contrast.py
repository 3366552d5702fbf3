"""Colours a person can read: WCAG 2.1's contrast ratio, and the code colours of every page the course renders.

WCAG 2.1 asks text to stand out from its background by 4.5:1 at least (success criterion 1.4.3, level AA):
:func:`contrast` is that ratio, from each colour's relative luminance in sRGB. :class:`CodeColours` is Pygments'
default palette with each colour darkened, its hue kept, until it reaches :data:`AA` on :data:`CODE_BACKGROUND`, the
darkest background code sits on in our pages (JupyterLab's code cell); nbconvert takes it as
``CSSHTMLHeaderPreprocessor.style``, set by the feedback page (:mod:`coursekit.plugins.feedback_page`) and the static
book (``scripts/build_book.py``), whose own palettes left comments, operators and escapes at 4.2–4.5:1.
Pygments and the standard library only.
"""
from pygments.style import Style
from pygments.styles.default import DefaultStyle

__all__ = ["AA", "CODE_BACKGROUND", "luminance", "contrast", "darkened", "readable_on", "CodeColours"]

AA = 4.5  # normal text, level AA
CODE_BACKGROUND = "#f5f5f5"  # JupyterLab's --jp-cell-editor-background; the feedback page's code sits on #f7f7f7


def _channels(colour: str) -> tuple:
    hex_digits = colour.lstrip("#")
    if len(hex_digits) == 3:
        hex_digits = "".join(2 * digit for digit in hex_digits)
    if len(hex_digits) != 6:
        raise ValueError(f"a colour is #rgb or #rrggbb: got {colour!r}")
    return tuple(int(hex_digits[i:i + 2], 16) for i in (0, 2, 4))


def luminance(colour: str) -> float:
    """WCAG's relative luminance of ``#rrggbb`` (0 black, 1 white)."""
    srgb = [c / 255 for c in _channels(colour)]
    linear = [c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in srgb]
    return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]


def contrast(first: str, second: str) -> float:
    """WCAG's contrast ratio of two colours, from 1 (the same) to 21 (black on white)."""
    light, dark = sorted((luminance(first), luminance(second)), reverse=True)
    return (light + 0.05) / (dark + 0.05)


def darkened(colour: str, background: str = CODE_BACKGROUND, target: float = AA + 0.1) -> str:
    """``colour`` with every channel scaled down by one factor (its hue kept) until it reaches ``target`` on
    ``background``; a colour that already does comes back as it was (lower-case ``#rrggbb``)."""
    red, green, blue = _channels(colour)
    for percent in range(100, -1, -1):
        candidate = "#{:02x}{:02x}{:02x}".format(*(round(c * percent / 100) for c in (red, green, blue)))
        if contrast(candidate, background) >= target:
            return candidate
    raise ValueError(f"no shade of {colour} reaches {target}:1 on {background}")


def readable_on(background: str) -> str:
    """Black or white, whichever stands out more on ``background`` (on any colour one of them reaches 4.58:1)."""
    return "#000000" if contrast("#000000", background) >= contrast("#ffffff", background) else "#ffffff"


def _darkened_style(style: str) -> str:
    """A Pygments style string with its text colour darkened (``bg:`` and ``border:`` colours are not text)."""
    return " ".join(darkened(part) if part.startswith("#") else part for part in style.split())


class CodeColours(Style):
    """Pygments' default style, every text colour at WCAG AA on the code background."""
    name = "coursekit-aa"
    background_color = DefaultStyle.background_color
    highlight_color = DefaultStyle.highlight_color
    styles = {token: _darkened_style(style) for token, style in DefaultStyle.styles.items()}
