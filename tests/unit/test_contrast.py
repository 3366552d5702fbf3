"""Can a person read the colours the course's pages use: WCAG 2.1's contrast ratio, and the code colours built on it?

coursekit.contrast against WCAG's own worked values (black on white 21:1, the same colour 1:1) and an independent
oracle: the sRGB luminance formula written out here from the standard.
"""
import pytest
from pygments.styles.default import DefaultStyle

from coursekit.contrast import AA, CODE_BACKGROUND, CodeColours, contrast, darkened, luminance, readable_on


def _oracle_luminance(colour: str) -> float:
    r, g, b = (int(colour[i:i + 2], 16) / 255 for i in (1, 3, 5))
    lin = [c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in (r, g, b)]
    return 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2]


def test_does_the_ratio_match_wcags_ends_and_the_oracle():
    """Black on white 21:1, a colour on itself 1:1, symmetric, and #777777 on white just under AA (4.48:1)?"""
    assert contrast("#000000", "#ffffff") == pytest.approx(21)
    assert contrast("#f5f5f5", "#f5f5f5") == pytest.approx(1)
    assert contrast("#777", "#fff") == pytest.approx(contrast("#ffffff", "#777777")) == pytest.approx(4.48, abs=0.01)
    for colour in ("#3d7b7b", "#aa22ff", "#b0651a", "#123456"):
        assert luminance(colour) == pytest.approx(_oracle_luminance(colour))


def test_is_a_bad_colour_named():
    with pytest.raises(ValueError, match=r"#rgb or #rrggbb: got 'teal'"):
        contrast("teal", "#fff")


@pytest.mark.parametrize("colour", ["#3d7b7b", "#aa22ff", "#f37524", "#ffff00"])
def test_does_darkening_reach_aa_keeping_the_hue(colour):
    """A colour under 4.5:1 comes back darker, at 4.6:1 or more, its channels in the same proportions (± rounding)?"""
    dark = darkened(colour)
    assert contrast(dark, CODE_BACKGROUND) >= AA + 0.1 > contrast(colour, CODE_BACKGROUND)
    before, after = (int(colour[i:i + 2], 16) for i in (1, 3, 5)), (int(dark[i:i + 2], 16) for i in (1, 3, 5))
    ratios = [a / b for a, b in zip(after, before) if b > 40]
    assert max(ratios) - min(ratios) < 0.05


def test_is_a_readable_colour_left_as_it_is():
    assert darkened("#000080") == "#000080"


def test_does_black_or_white_always_reach_aa():
    """On every grey and every colour of a coarse RGB grid, the better of black and white reaches 4.5:1 or more?"""
    greys = [f"#{v:02x}{v:02x}{v:02x}" for v in range(256)]
    grid = [f"#{r:02x}{g:02x}{b:02x}" for r in range(0, 256, 17) for g in range(0, 256, 17) for b in range(0, 256, 17)]
    worst = min(contrast(readable_on(c), c) for c in greys + grid)
    assert worst >= AA


def test_does_every_code_colour_reach_aa_on_the_code_background():
    """Each text colour of the course's Pygments style reaches 4.5:1 on the code background, one for each of
    Pygments' default tokens (so no token falls back to an unchecked colour)?"""
    texts = {token: [p for p in style.split() if p.startswith("#")] for token, style in CodeColours.styles.items()}
    assert texts and CodeColours.styles.keys() == DefaultStyle.styles.keys()
    failing = {str(token): colours for token, colours in texts.items()
               if any(contrast(c, CODE_BACKGROUND) < AA for c in colours)}
    assert failing == {}
    assert CodeColours.styles != DefaultStyle.styles  # some were darkened
