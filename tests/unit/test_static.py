"""Does the grading path know when nbgrader runs it, and render each demo figure once per cache?"""
import numpy as np
import pytest

from attnkit import language, static

PNG = static.PNG_MAGIC + b"rest of a picture"


@pytest.fixture
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("ATTNKIT_CACHE_DIR", str(tmp_path / "cache"))
    return tmp_path / "cache"


class Renderer:
    """A render callback that counts its calls."""

    def __init__(self, data=PNG):
        self.calls, self.data = 0, data

    def __call__(self) -> bytes:
        self.calls += 1
        return self.data


@pytest.mark.parametrize("value, grading", [
    ("autograde", True), ("validate", True), (None, False), ("", False), ("yes", False)])
def test_grading_is_the_values_nbgrader_sets(monkeypatch, value, grading):
    """Is it grading exactly when NBGRADER_EXECUTION is 'autograde' or 'validate', as nbgrader sets it?"""
    if value is None:
        monkeypatch.delenv("NBGRADER_EXECUTION", raising=False)
    else:
        monkeypatch.setenv("NBGRADER_EXECUTION", value)
    assert static.under_grading() is grading


def test_keys_follow_what_the_figure_shows():
    """Same name and parameters give the same key; another array, value or figure name another key?"""
    scores = np.arange(4.0).reshape(2, 2)
    key = static.cache_key("pipeline", {"scores": scores, "tokens": None})
    assert key == static.cache_key("pipeline", {"scores": scores.copy(), "tokens": None})
    others = {
        static.cache_key("pipeline", {"scores": scores + 1, "tokens": None}),
        static.cache_key("pipeline", {"scores": scores.astype(np.float32), "tokens": None}),
        static.cache_key("pipeline", {"scores": scores.reshape(4, 1), "tokens": None}),
        static.cache_key("pipeline", {"scores": scores, "tokens": ["a", "b"]}),
        static.cache_key("head_grid", {"scores": scores, "tokens": None}),
    }
    assert key not in others and len(others) == 5
    assert key.startswith("pipeline-") and key.endswith(".png")


def test_each_language_has_its_own_picture():
    """The same figure in Chinese and in English: two keys; no lang given: the notebook's language decides?"""
    params = {"scores": np.eye(2)}
    zh, en = static.cache_key("pipeline", params, lang="zh"), static.cache_key("pipeline", params, lang="en")
    assert zh != en and static.cache_key("pipeline", params) == zh
    with language.using("en"):
        assert static.cache_key("pipeline", params) == en


def test_renders_once_then_reads_back(cache):
    """Is render called on the first request only, with the same bytes returned both times?"""
    render = Renderer()
    assert static.cached_png("demo", {"n": 1}, render) == PNG
    assert static.cached_png("demo", {"n": 1}, render) == PNG
    assert render.calls == 1
    assert static.cached_png("demo", {"n": 2}, render) == PNG and render.calls == 2
    assert sorted(p.suffix for p in cache.iterdir()) == [".png", ".png"]


def test_a_file_that_is_not_a_png_is_rendered_again(cache):
    """Is a truncated or foreign file in the cache replaced instead of shown?"""
    render = Renderer()
    static.cached_png("demo", {}, render)
    (cache / static.cache_key("demo", {})).write_bytes(b"not a png")
    assert static.cached_png("demo", {}, render) == PNG and render.calls == 2


def test_an_unwritable_cache_still_shows_the_figure(tmp_path, monkeypatch):
    """With the cache folder impossible to create, is the figure rendered and returned anyway?"""
    blocker = tmp_path / "file"
    blocker.write_text("a file where the folder should be")
    monkeypatch.setenv("ATTNKIT_CACHE_DIR", str(blocker / "cache"))
    render = Renderer()
    assert static.cached_png("demo", {}, render) == PNG
    assert static.cached_png("demo", {}, render) == PNG and render.calls == 2


def test_default_folder_is_the_users_cache(tmp_path, monkeypatch):
    """Without ATTNKIT_CACHE_DIR, is it $XDG_CACHE_HOME/attnkit?"""
    monkeypatch.delenv("ATTNKIT_CACHE_DIR", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert static.cache_dir() == tmp_path / "attnkit"
