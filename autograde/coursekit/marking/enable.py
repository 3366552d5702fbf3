"""Turn the marking page on for an instructor's Jupyter: the server extension and the 批改 menu.

Two small files, written by ``make lab`` (into ``.state/``) and by the hub (into the instructor's
``~/.jupyter``), never shipped with the package: a ``jupyter_server_config.d`` file installed
with the package would turn the page on in every server of the environment, students' included.

* ``<config dir>/jupyter_server_config.d/coursekit-marking.json`` — ``ServerApp.jpserver_extensions``
  (and ``CourseMarking.course`` when given);
* ``<lab settings dir>/@jupyterlab/mainmenu-extension/plugin.jupyterlab-settings`` — a top-level menu
  **批改** whose item opens the page in a new browser tab (JupyterLab's own ``help:open`` command;
  no Lab extension to build), named in the course's language (``marking.menu`` in the catalogue; the default
  language without a course config). An existing settings file keeps its other menus.

    python -m coursekit.marking.enable --base-url / [--course DIR]   # $JUPYTER_CONFIG_DIR, $JUPYTERLAB_SETTINGS_DIR
"""
import argparse
import json
import os
import pathlib

from ..language import DEFAULT, WORDS

__all__ = ["EXTENSION", "MENU_ID", "MENU_SETTINGS", "server_config", "menu_settings", "write"]

EXTENSION = "coursekit.marking"
MENU_ID = "jp-mainmenu-coursekit-marking"
MENU_SETTINGS = "@jupyterlab/mainmenu-extension/plugin.jupyterlab-settings"
CONFIG_FILE = "jupyter_server_config.d/coursekit-marking.json"


def server_config(course=None) -> dict:
    config = {"ServerApp": {"jpserver_extensions": {EXTENSION: True}}}
    if course is not None:
        config["CourseMarking"] = {"course": str(course)}
    return config


def menu(base_url: str = "/", lang: str = DEFAULT) -> dict:
    url = base_url.rstrip("/") + "/marking/"
    return {"id": MENU_ID, "label": WORDS.say(lang, "marking.menu"), "rank": 90, "items": [
        {"command": "help:open", "args": {"url": url, "text": WORDS.say(lang, "marking.menu_item"),
                                          "newBrowserTab": True}, "rank": 0}]}


def menu_settings(existing: dict | None = None, base_url: str = "/", lang: str = DEFAULT) -> dict:
    """``existing`` main-menu settings with the 批改 menu added (or replaced)."""
    settings = dict(existing or {})
    others = [m for m in settings.get("menus", []) if m.get("id") != MENU_ID]
    settings["menus"] = [*others, menu(base_url, lang)]
    return settings


def _language(course) -> str:
    """The course's language (``c.CourseKit.language``) when ``course`` has a config, else the default."""
    if course is None or not (pathlib.Path(course) / "nbgrader_config.py").is_file():
        return DEFAULT
    from ..settings import course_settings
    return course_settings(course).language


def _write_json(path: pathlib.Path, data: dict) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")


def write(config_dir, settings_dir, base_url: str = "/", course=None) -> list:
    """Write both files; the paths written. A settings file that is not plain JSON is left alone."""
    lang = _language(course)
    config_path = pathlib.Path(config_dir) / CONFIG_FILE
    _write_json(config_path, server_config(course))
    written = [config_path]
    settings_path = pathlib.Path(settings_dir) / MENU_SETTINGS
    try:
        existing = json.loads(settings_path.read_text(encoding="utf-8")) if settings_path.exists() else {}
    except ValueError:
        label = WORDS.say(lang, "marking.menu")
        print(f"{settings_path} has comments or is not JSON: add the {label} menu by hand (see autograde/README.md)")
        return written
    _write_json(settings_path, menu_settings(existing, base_url, lang))
    return written + [settings_path]


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description="Turn the marking page on for this Jupyter (instructors).")
    parser.add_argument("--config-dir", default=os.environ.get("JUPYTER_CONFIG_DIR"), required=False)
    parser.add_argument("--settings-dir", default=os.environ.get("JUPYTERLAB_SETTINGS_DIR"), required=False)
    parser.add_argument("--base-url", default="/")
    parser.add_argument("--course", default=None)
    args = parser.parse_args(argv)
    if not args.config_dir or not args.settings_dir:
        parser.error("give --config-dir and --settings-dir (or set JUPYTER_CONFIG_DIR and JUPYTERLAB_SETTINGS_DIR)")
    write(args.config_dir, args.settings_dir, args.base_url, args.course)


if __name__ == "__main__":
    main()
