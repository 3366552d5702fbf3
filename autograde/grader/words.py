"""The grader's words: its gettext catalogue (``grader/locale``), read by :mod:`coursekit.language`'s loader.

Every sentence the grader adds to a student's feedback in the practice exercises is a message of this catalogue
(``WORDS.say(lang, "practice.…")``); ``make translations`` keeps its ``.po`` files whole. Never released to students:
the grader's folder stays with the course.
"""
import pathlib

from coursekit.language import Catalogue

__all__ = ["WORDS"]

WORDS = Catalogue("grader", pathlib.Path(__file__).with_name("locale"))
