"""Does JupyterLab itself speak the student's language: its language pack installed, its locale set from their edition
or LMS launch, and a locale they chose themselves left alone (coursekit/plugins/lab_locale.py)?"""
import json5
import pytest
from jupyterlab_server.translation_utils import get_language_packs

from coursekit.language import LANGUAGES, PSEUDO, WORDS
from coursekit.plugins import lab_locale


def _locale(folder):
    return json5.loads(lab_locale.settings_file(folder).read_text(encoding="utf-8"))["locale"]


@pytest.mark.parametrize("lang", LANGUAGES)
def test_is_each_languages_jupyterlab_locale_an_installed_pack(lang):
    """Each course language names a JupyterLab locale that is installed (English is JupyterLab's own)?"""
    packs, _ = get_language_packs("en")
    assert WORDS.say(lang, "locale.jupyterlab") in packs
    assert WORDS.say(PSEUDO, "locale.jupyterlab") == "en"  # a setting, never bracketed


def test_does_the_locale_follow_the_edition_but_not_over_the_students_own_choice(tmp_path):
    assert lab_locale.remembered(tmp_path) == "" and lab_locale.follow("zh", tmp_path)
    assert _locale(tmp_path) == "zh_CN" and lab_locale.remembered(tmp_path) == "zh"
    assert lab_locale.follow("en", tmp_path) and _locale(tmp_path) == "en"  # a fetch of the English edition
    lab_locale.settings_file(tmp_path).write_text('{\n    // chosen in Settings › Language\n    "locale": "zh_CN"\n}')
    assert not lab_locale.follow("en", tmp_path) and _locale(tmp_path) == "zh_CN"  # theirs: kept
    assert lab_locale.remembered(tmp_path) == "en"  # what the Assignment List speaks before a fetch
    assert not lab_locale.follow("fr", tmp_path) and lab_locale.remembered(tmp_path) == "en"
