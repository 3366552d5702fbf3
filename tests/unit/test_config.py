"""Does loading the course's nbgrader_config.py change nothing but settings?

Every process that reads the config (nbgrader's commands, the formgrader, a student's Validate on the
hub) loads it; a patch made at import would change nbgrader for all of them. The course's changes to
nbgrader's own behaviour are applied by the commands that want them (tests/unit/test_plugins_*.py).
"""
import json
import subprocess
import sys

from coursekit.paths import COURSE

LOOK = r"""
import json, sys
import jsonschema, nbgrader.api, nbgrader.validator
from nbgrader.nbgraderformat import common
from traitlets.config.loader import PyFileConfigLoader

def seen():
    v = nbgrader.validator.Validator
    return {"create_engine": id(nbgrader.api.create_engine), "jsonschema": id(common.jsonschema),
            "validate": id(v.validate), "preprocessors": [p.__name__ for p in v.class_traits()["preprocessors"].default()]}

before = seen()
config = PyFileConfigLoader("nbgrader_config.py", path=sys.argv[1]).load_config()
print(json.dumps({"before": before, "after": seen(), "kernel": str(config.Execute.kernel_manager_class)}))
"""


def test_does_loading_the_config_leave_nbgrader_as_it_was():
    """The engine factory, the metadata schema check, Validator.validate and its preprocessors: all nbgrader's own?"""
    run = subprocess.run([sys.executable, "-c", LOOK, str(COURSE)], capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr[-2000:]
    seen = json.loads(run.stdout)
    assert seen["before"] == seen["after"]
    assert seen["before"]["preprocessors"] == ["CheckCellMetadata", "ClearOutput", "Execute"]
    assert "GradingKernelManager" in seen["kernel"]  # and the settings are there


def test_is_a_student_over_the_time_told_in_every_language_from_the_catalogue():
    """No notebook says the student's language then: the course's languages in one line, the first's as it was?"""
    from coursekit.language import LANGUAGES, WORDS
    from coursekit.settings import over_budget

    said = over_budget(30)
    assert said == "评分超过 30 秒仍未结束，已被停止（Grading took longer than 30 s and was stopped）"
    assert all(WORDS.say(lang, "grading.stopped_over_time", seconds=30) in said for lang in LANGUAGES)
