"""Does the browser explorer get the right inputs from Python, and is Python its source of truth?

What the browser computes from them is compared with attnkit in Chromium
(tests/integration/test_explorer_numbers.py); the grading path is in test_figures.py.
"""
import io
import subprocess
import sys

import numpy as np
import pytest

from attnkit import glossary, sharpness
from attnkit.language import LANGUAGES
from attnkit.sharpness_plot import WIDTH_PX
from attnkit.widgets import ASSETS, SharpnessExplorer, first_frame_png, module_source, sharpness_explorer
from support.editions import CJK

WIDGET_MIME = "application/vnd.jupyter.widget-view+json"


@pytest.fixture
def explorer():
    return sharpness_explorer()


def table(ex: SharpnessExplorer) -> np.ndarray:
    return np.frombuffer(ex.scores, dtype="<f8").reshape(len(ex.head_dims), ex.max_seq_len, ex.max_seq_len)


def test_sends_the_raw_scores_of_its_seed(explorer):
    """Is the one buffer sent raw_scores(seed), [N, 64, 64] float64, for the sliders' head_dims?"""
    assert explorer.head_dims == list(sharpness.HEAD_DIMS) and explorer.max_seq_len == 64
    np.testing.assert_array_equal(table(explorer), sharpness.raw_scores(0))
    explorer.seed = 5
    np.testing.assert_array_equal(table(explorer), sharpness.raw_scores(5))


def test_the_table_holds_every_setting(explorer):
    """Is the corner [:T, :T] of table i the q·k that measure() starts from, at head_dims[i] and seq_len T?"""
    for index, head_dim in enumerate(sharpness.HEAD_DIMS):
        for seq_len in (2, 13, 64):
            q, k = sharpness.random_qk(head_dim, seq_len, seed=0)
            np.testing.assert_allclose(table(explorer)[index, :seq_len, :seq_len], q @ k.T, rtol=1e-12, atol=1e-12)


def test_measure_is_what_the_controls_show(explorer):
    """After the browser moves the controls (synced back), does measure() follow them?"""
    explorer.set_state({"head_dim": 256, "scaled": True, "seq_len": 20, "causal": True})
    expected = sharpness.measure(256, scaled=True, seq_len=20, seed=0, causal=True)
    np.testing.assert_array_equal(explorer.measure().weights, expected.weights)


@pytest.mark.parametrize("setting, message", [
    ({"head_dim": 100}, "head_dim must be a power of two from 1 to 1024: head_dim=100"),
    ({"seq_len": 65}, "seq_len must be an integer from 2 to 64: seq_len=65"),
    ({"seq_len": 1}, "seq_len must be an integer from 2 to 64: seq_len=1"),
    ({"seed": -1}, "seed must be an integer >= 0: seed=-1"),
])
def test_settings_it_cannot_show_are_refused_with_the_rule(setting, message):
    """Does a value outside the sliders' range fail at once, naming the rule and the value?"""
    with pytest.raises(ValueError) as raised:
        sharpness_explorer(**setting)
    assert str(raised.value) == message


def test_setting_a_bad_value_later_keeps_the_old_one(explorer):
    """Setting head_dim=3 on a live explorer: refused with the same message, and head_dim stays 64?"""
    with pytest.raises(Exception, match="head_dim must be a power of two"):
        explorer.head_dim = 3
    assert explorer.head_dim == 64


def test_one_module_with_the_numbers_and_the_view():
    """Is the widget's module sharpness.js followed by explorer.js, its import of the numbers removed?"""
    source = module_source()
    assert source.index("export function measure(") < source.index("function render(")
    assert 'from "./sharpness.js"' not in source and source.rstrip().endswith("export default {render};")
    assert SharpnessExplorer._esm == source


@pytest.mark.parametrize("lang", LANGUAGES)
def test_does_the_browser_get_its_editions_words(lang):
    """Does the widget send its edition's words and language (the browser has no word list of its own)?"""
    explorer = SharpnessExplorer(lang=lang)
    assert (explorer.language, explorer.words) == (lang, sharpness.words(lang))
    assert explorer.readout() == sharpness.summary(explorer.measure(), lang)


def test_are_the_words_the_chapters_in_both_languages():
    """Chinese words as before; English ones with no Chinese character; the same keys; none left in the JS?"""
    assert {"因果掩码", "缩放", "不缩放", "softmax 权重（斜线格 = 被屏蔽）", "每一行：1 / 0 = one-hot",
            "head_dim 越大，权重越尖锐？", "每行最大权重", "熵 / ln(可见键数)", "均匀分布", "查询行 i",
            "平均熵（nats）"} <= set(sharpness.words("zh").values())
    assert not any(CJK.search(w) for w in sharpness.words("en").values())
    assert sharpness.words("en")["causal"] == glossary.term("causal_mask", "en")
    for script in ("explorer.js", "sharpness.js"):
        assert not CJK.search((ASSETS / script).read_text(encoding="utf-8")), "a word belongs in attnkit's catalogue"


def test_does_a_language_it_does_not_know_fail_clearly():
    with pytest.raises(ValueError, match=r"language must be one of 'zh', 'en', got 'fr'"):
        SharpnessExplorer(lang="fr")


def test_displays_as_a_widget(explorer):
    """Shown as a cell's value, is it a widget view of its own model?"""
    bundle = explorer._repr_mimebundle_()
    data = bundle[0] if isinstance(bundle, tuple) else bundle
    assert data[WIDGET_MIME]["model_id"] == explorer.model_id


def test_the_live_explorer_needs_no_matplotlib():
    """Does creating the live explorer leave matplotlib unimported (the browser draws)?"""
    code = "import sys; from attnkit.widgets import sharpness_explorer; sharpness_explorer(); print('matplotlib' in sys.modules)"
    assert subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.strip() == "False"


def test_first_frame_is_as_wide_as_the_live_figure():
    """Is first_frame_png() (grading) a PNG as wide as the browser's figure, 1100 CSS px?"""
    from PIL import Image

    data = first_frame_png(head_dim=256, causal=True)
    assert data.startswith(b"\x89PNG") and Image.open(io.BytesIO(data)).width == WIDTH_PX == 1100
    assert "const WIDTH = 1100, HEIGHT = 360;" in module_source()
