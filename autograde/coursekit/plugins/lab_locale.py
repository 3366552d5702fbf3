"""JupyterLab's own words in the student's language: its language pack, chosen by their edition or their LMS launch.

JupyterLab says its menus and dialogs through language packs (``jupyterlab-language-pack-zh-CN``, installed with the
course) and picks one by the user's setting ``locale`` of ``@jupyterlab/translation-extension:plugin``.
:func:`follow` writes that setting, in the student's own JupyterLab settings, as the locale of their language
(``locale.jupyterlab`` in the course's catalogue: ``zh_CN``, ``en``); JupyterLab's next page speaks it. It is called
where the student's language becomes known: an LMS launch landing (:mod:`.open_assignment`, the language the launch
names) and an edition fetched (:mod:`.feedback_watch`, the edition fetched last).

A locale the student chose themselves (JupyterLab's Settings › Language) is theirs and stays: beside the setting the
course keeps what it wrote last (:data:`MARK`), and a setting that differs from it was not written by the course.
The same file remembers the student's language (:func:`remembered`): the Assignment List speaks it before they fetch.
"""
import json
import os
import pathlib

import json5

from ..language import SPOKEN, WORDS

__all__ = ["PLUGIN", "MARK", "settings_file", "follow", "remembered"]

PLUGIN = pathlib.Path("@jupyterlab", "translation-extension", "plugin.jupyterlab-settings")
MARK = ".coursekit-language"  # beside the settings file: "<language> <locale the course wrote>"


def _settings_dir() -> pathlib.Path:
    from jupyterlab.commands import get_user_settings_dir  # the student's own: JUPYTERLAB_SETTINGS_DIR or ~/.jupyter

    return pathlib.Path(get_user_settings_dir())


def settings_file(folder=None) -> pathlib.Path:
    return pathlib.Path(folder or _settings_dir()) / PLUGIN


def _read(path: pathlib.Path) -> dict:
    try:
        found = json5.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return found if isinstance(found, dict) else {}


def _mark(folder) -> tuple:
    """(the student's language, the locale the course wrote last) as remembered; ("", "") when none."""
    try:
        language, _, locale = (settings_file(folder).parent / MARK).read_text(encoding="utf-8").partition(" ")
    except OSError:
        return "", ""
    return language.strip(), locale.strip()


def remembered(folder=None) -> str:
    """The student's language as last told to :func:`follow` ("" when never)."""
    language = _mark(folder)[0]
    return language if language in SPOKEN else ""


def follow(lang: str, folder=None) -> bool:
    """JupyterLab's locale set to ``lang``'s from its next page, unless the student chose another one themselves;
    True when the setting was written."""
    if lang not in SPOKEN:
        return False
    path, locale = settings_file(folder), WORDS.say(lang, "locale.jupyterlab")
    settings, (_, wrote) = _read(path), _mark(folder)
    chosen = settings.get("locale")
    ours = chosen is None or chosen == wrote
    path.parent.mkdir(parents=True, exist_ok=True)
    if ours and chosen != locale:
        written = path.with_name(f".{path.name}.{os.getpid()}")
        written.write_text(json.dumps({**settings, "locale": locale}, indent=4) + "\n", encoding="utf-8")
        os.replace(written, path)
    (path.parent / MARK).write_text(f"{lang} {locale if ours else wrote}\n", encoding="utf-8")
    return ours and chosen != locale
