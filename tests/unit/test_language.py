"""Does a notebook choose attnkit's language once, and can anyone else render in either language regardless?"""
import subprocess
import sys

import pytest

from attnkit import language


def test_chinese_unless_told():
    """A fresh process: Chinese, for the notebook and for a renderer given no language?"""
    code = "from attnkit import language; print(language.current(), language.resolve())"
    assert subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout == "zh zh\n"


def test_the_notebook_chooses_and_an_explicit_language_wins():
    with language.using("en"):
        assert (language.current(), language.resolve(), language.resolve("zh")) == ("en", "en", "zh")
    assert language.current() == "zh"


def test_using_gives_the_choice_back_even_after_an_error():
    with pytest.raises(RuntimeError), language.using("en"):
        raise RuntimeError("a cell failed")
    assert language.current() == "zh"


@pytest.mark.parametrize("call", [lambda: language.use_language("fr"), lambda: language.resolve("EN")])
def test_an_unknown_language_is_named(call):
    with pytest.raises(ValueError, match=r"language must be one of 'zh', 'en', got '(fr|EN)'"):
        call()
    assert language.current() == "zh"  # a refused choice changes nothing


@pytest.mark.parametrize("metadata, lang", [({}, "zh"), ({"edition": {"language": "en"}}, "en"),
                                            ({"edition": {}}, "zh"), ({"kernelspec": {"language": "python"}}, "zh"),
                                            ({"edition": {"language": "jp"}}, "zh"), ({"edition": "en"}, "zh")])
def test_a_notebook_says_its_language_in_its_metadata(metadata, lang):
    """metadata.edition.language, Chinese when absent or unknown (the Chinese edition carries no key; a student's
    copy may say anything); the kernel's programming language is not it?"""
    assert language.of_notebook({"metadata": metadata, "cells": []}) == lang


def test_standard_library_only():
    """The grader's process and the instructor's tools import it without numpy?"""
    # attnkit/__init__ imports numpy; the module itself, loaded by path, must not
    code = ("import importlib.util, sys; spec = importlib.util.spec_from_file_location('l', sys.argv[1]); "
            "m = importlib.util.module_from_spec(spec); spec.loader.exec_module(m); print('numpy' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code, language.__file__], capture_output=True, text=True, check=True)
    assert out.stdout == "False\n"
