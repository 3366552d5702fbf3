"""Is every piece of upstream code the course copies, patches or stands in for still the code it was written against?

One row per piece: the package, the upstream function or class (its qualified name), the fingerprint of its source
when our piece was last checked against it (:func:`coursekit.upstream.fingerprint`: sha256 of the source without
comments, docstrings or layout), and what to re-check when it moves. A row fails when `pip install -U` (or
`make test-upgrade`) brings a version whose source differs: read the upstream change, fix our piece if needed,
then put the new fingerprint in the row. Copies and patches sit in ``coursekit/upstream/<package>.py``; stand-ins
(the kernel manager and client nbclient drives, the preprocessors that override nbgrader's hooks) stay with the
plug-ins, and their rows say where.

Beside the table: rows for upstream *values* the course compares with, and three guards that keep copies and
patches in ``coursekit/upstream/``: every module there has rows, no private upstream name and no assignment into an
upstream module or class is used outside it, and every override of an upstream private method has a row.
"""
import ast
import importlib
import inspect
import pkgutil

import pytest

import coursekit
from coursekit.paths import REPO
from coursekit.upstream import fingerprint

COURSEKIT = REPO / "autograde" / "coursekit"
UPSTREAM = COURSEKIT / "upstream"
PACKAGES = ("ipykernel", "IPython", "jupyter_client", "nbclient", "nbconvert", "nbformat", "nbgrader", "jsonschema",
            "sqlalchemy", "traitlets", "tornado", "jupyter_server", "jupyterhub")


def _copy(module: str) -> str:
    return f"our copy in coursekit/upstream/{module}.py"


KERNEL = "coursekit/kernel/manager.py (GradingKernelManager: what nbclient asks of a kernel manager)"
CLIENT = "coursekit/kernel/client.py (RunnerClient: what nbclient asks of a kernel client, the messages it reads)"

# (package, upstream qualified name, fingerprint, what to re-check)
ROWS = [
    # the grading kernel: ipykernel's shell without its protocol (coursekit/sandbox/cells.py calls these)
    ("ipykernel", "ipykernel.ipkernel.IPythonKernel.do_execute", "e9f9d994bea0798c", _copy("ipykernel") + " (execute)"),
    ("ipykernel", "ipykernel.kernelbase.Kernel.execute_request", "2342b91e73e01701", _copy("ipykernel") + " (execute: the order of the messages)"),
    ("ipykernel", "ipykernel.ipkernel.IPythonKernel.__init__", "1dd33fb4bad5b43e", _copy("ipykernel") + " (new_shell, attach)"),
    ("ipykernel", "ipykernel.ipkernel.IPythonKernel._forward_input", "26f9d4e6274c8403", _copy("ipykernel") + " (attach: input, getpass)"),
    ("ipykernel", "ipykernel.kernelbase.Kernel.raw_input", "23e7d592210cff94", _copy("ipykernel") + " (attach: _NoStdin)"),
    ("ipykernel", "ipykernel.kernelbase.Kernel.getpass", "d050de76fed7c9ef", _copy("ipykernel") + " (attach: _NoStdin)"),
    ("ipykernel", "ipykernel.zmqshell.ZMQInteractiveShell._showtraceback", "ac4bd6183a9fcdb3", _copy("ipykernel") + " (execute: _last_traceback)"),
    ("ipykernel", "ipykernel.zmqshell.ZMQInteractiveShell.init_environment", "82517ebfb5d57bfc", _copy("ipykernel") + " (attach)"),
    ("ipykernel", "ipykernel.kernelapp.IPKernelApp.init_gui_pylab", "a2585b1ad077237a", _copy("ipykernel") + " (INLINE, inline_backend)"),
    ("ipykernel", "ipykernel.displayhook.ZMQShellDisplayHook.finish_displayhook", "015d6342d2c9f52a", _copy("jupyter_client") + " (LineSession.send: how it is called)"),
    ("ipykernel", "ipykernel.zmqshell.ZMQDisplayPublisher.publish", "9e0aefed2732a8b9", _copy("jupyter_client") + " (LineSession.send: how it is called)"),
    ("ipykernel", "ipykernel.zmqshell.ZMQDisplayPublisher.clear_output", "1706d59f7fb52520", _copy("jupyter_client") + " (LineSession.send: how it is called)"),
    ("jupyter_client", "jupyter_client.session.Session.send", "00647e0a1603c5ff", _copy("jupyter_client") + " (LineSession.send)"),
    # nbclient drives our kernel manager and client (stand-ins), and leaves signal handlers behind
    ("nbclient", "nbclient.client.NotebookClient.async_setup_kernel", "6d8d292af83948d8", _copy("nbclient") + " (keep_signal_handlers), and " + KERNEL),
    ("nbclient", "nbclient.client.NotebookClient.async_start_new_kernel", "2cec9c52125704c9", KERNEL),
    ("nbclient", "nbclient.client.NotebookClient._async_cleanup_kernel", "6ca130eba3306825", KERNEL),
    ("nbclient", "nbclient.client.NotebookClient._async_handle_timeout", "7eeb908aa19e00bc", KERNEL),
    ("nbclient", "nbclient.client.NotebookClient.async_start_new_kernel_client", "dc1101840f208257", CLIENT),
    ("nbclient", "nbclient.client.NotebookClient.async_execute", "6383b4b8c3bf694f", CLIENT),
    ("nbclient", "nbclient.client.NotebookClient.async_execute_cell", "2e773b8263d24215", CLIENT),
    ("nbclient", "nbclient.client.NotebookClient._async_poll_for_reply", "4ac094d3f4cc086d", CLIENT),
    ("nbclient", "nbclient.client.NotebookClient._async_poll_output_msg", "160ddbd18cddb9b4", CLIENT),
    ("nbclient", "nbclient.client.NotebookClient._async_check_alive", "17de7a62a58d540f", CLIENT),
    ("nbclient", "nbclient.client.NotebookClient.process_message", "39dcc4db560212b2", CLIENT),
    ("nbformat", "nbformat.v4.nbbase.output_from_msg", "c71b2c502bed5d0b",
     "coursekit/kernel/output_cap.py (_FIELDS: what an output keeps) and " + CLIENT),
    # the feedback page
    ("nbconvert", "nbconvert.exporters.html.HTMLExporter.from_notebook_node", "31bf2abafe755449", _copy("nbconvert")),
    ("nbconvert", "nbconvert.exporters.html.HTMLExporter._init_resources", "ca8068f6c7bf9a03", _copy("nbconvert")),
    # a student's Markdown rendered as the exporter renders it, formulas as MathML (then sanitised)
    ("nbconvert", "nbconvert.exporters.html.HTMLExporter.markdown2html", "f40942d0bb695b93", _copy("nbconvert") + " (markdown_to_html)"),
    ("nbconvert", "nbconvert.filters.markdown_mistune.IPythonRenderer.__init__", "675558411885202b", _copy("nbconvert") + " (_MathRenderer)"),
    ("nbconvert", "nbconvert.filters.markdown_mistune.IPythonRenderer.inline_math", "95dc6c08eb336c86", _copy("nbconvert") + " (_MathRenderer)"),
    ("nbconvert", "nbconvert.filters.markdown_mistune.IPythonRenderer.block_math", "f4e691d7c7c04b75", _copy("nbconvert") + " (_MathRenderer)"),
    ("nbconvert", "nbconvert.filters.markdown_mistune.IPythonRenderer.latex_environment", "a6e01c483083af8b", _copy("nbconvert") + " (_MathRenderer)"),
    # the formgrader renders submissions with a plain HTMLExporter built from the course's config, which sanitises
    ("nbgrader", "nbgrader.server_extensions.formgrader.formgrader.FormgradeExtension.init_tornado_settings", "3013894b708cc124",
     "coursekit/plugins/safe_html.py (sanitised: the exporter must still be built from the config)"),
    ("nbgrader", "nbgrader.server_extensions.formgrader.formgrader.FormgradeExtension.build_extra_config", "0d9752ad0a5dd5be",
     "coursekit/plugins/safe_html.py (sanitised: what the formgrader sets over the course's config)"),
    # nbgrader's rules, re-written
    ("nbgrader", "nbgrader.preprocessors.clearhiddentests.ClearHiddenTests._remove_hidden_test_region", "294af56237fb2350",
     _copy("nbgrader") + " (remove_hidden_tests)"),
    ("nbgrader", "nbgrader.preprocessors.saveautogrades.SaveAutoGrades._add_score", "4a829fb94459179e", _copy("nbgrader") + " (auto_score)"),
    ("nbgrader", "nbgrader.preprocessors.saveautogrades.SaveAutoGrades._add_comment", "c33f5c551cada9c3",
     _copy("nbgrader") + " (auto_comment, NO_RESPONSE_COMMENT)"),
    ("nbgrader", "nbgrader.preprocessors.getgrades.GetGrades._get_score", "2054f37cfdf88111", _copy("nbgrader") + " (show_score)"),
    ("nbgrader", "nbgrader.preprocessors.latesubmissions.AssignLatePenalties.preprocess", "a7bed76f640ff3dc",
     _copy("nbgrader") + " (late_penalty), and coursekit/late.py (LatePolicy reads its gradebook and assignment_id)"),
    ("nbgrader", "nbgrader.preprocessors.latesubmissions.AssignLatePenalties._check_late_penalty", "065e2cbe7c759c40",
     _copy("nbgrader") + " (late_penalty)"),
    ("nbgrader", "nbgrader.plugins.export.CsvExportPlugin.export", "6c5fbe4bc427aea1", _copy("nbgrader") + " (exported_score)"),
    ("nbgrader", "nbgrader.plugins.latesubmission.LateSubmissionPlugin", "5d498b7779e1860b",
     "coursekit/late.py (LatePolicy: nbgrader's penalty_method values kept, its hook's signature)"),
    ("nbgrader", "nbgrader.api.Gradebook.find_source_cell", "ac73ff7aa7198f99", _copy("nbgrader") + " (CellsAtOnce)"),
    ("nbgrader", "nbgrader.api.Gradebook.find_graded_cell", "485c081f83401996", _copy("nbgrader") + " (CellsAtOnce)"),
    ("nbgrader", "nbgrader.exchange.default.release_feedback.ExchangeReleaseFeedback.copy_files", "97fd1e51ff21f2ab",
     _copy("nbgrader") + " (released_pages)"),
    ("nbgrader", "nbgrader.exchange.default.collect.ExchangeCollect._path_to_record", "591672694a51f532",
     _copy("nbgrader") + " (parse_submission_name)"),
    ("nbgrader", "nbgrader.exchange.default.submit.ExchangeSubmit.copy_files", "f5e7c2c325a7850e",
     _copy("nbgrader") + " (SECRET_FILE, SECRET_LENGTH)"),
    ("nbgrader", "nbgrader.utils.get_username", "06cafbdeb05253e9", _copy("nbgrader") + " (SHARED_UNIX_USER)"),
    # collect through coursekit.inbound: nbgrader's choices re-written, its methods stood in for
    ("nbgrader", "nbgrader.exchange.default.collect.ExchangeCollect.init_src", "defbdc264cf1bc44",
     _copy("nbgrader") + " (collected_submission), and coursekit/exchange.py (CheckedCollect.init_src)"),
    ("nbgrader", "nbgrader.exchange.default.collect.ExchangeCollect.copy_files", "6a390003c294c42c",
     _copy("nbgrader") + " (should_collect), and coursekit/exchange.py (CheckedCollect.copy_files)"),
    ("nbgrader", "nbgrader.utils.ignore_patterns", "0b5eee261703b851", _copy("nbgrader") + " (left_out)"),
    ("nbgrader", "nbgrader.exchange.default.exchange.Exchange.do_copy", "fec58111caea5f50",
     _copy("nbgrader") + " (share_with_group, left_out: what CheckedCollect copies instead)"),
    ("nbgrader", "nbgrader.exchange.default.list.ExchangeList.init_dest", "5bcd42e226dc9d0c",
     "coursekit/exchange.py (CheckedList.init_dest)"),
    ("nbgrader", "nbgrader.exchange.default.list.ExchangeList.parse_assignments", "2a89e24b8a3747f8",
     "coursekit/exchange.py (CheckedList: what nbgrader's listing still opens; autograde/README.md, Limits)"),
    ("nbgrader", "nbgrader.validator.Validator._extract_error", "0adccbca93b6f177", _copy("nbgrader") + " (NO_RESPONSE_ERROR)"),
    # nbgrader's patches
    ("nbgrader", "nbgrader.api.Gradebook.__init__", "aa2dee7d9eeacfad", _copy("nbgrader") + " (share_engines)"),
    ("nbgrader", "nbgrader.nbgraderformat.common.BaseMetadataValidator.validate_cell", "87dee2d2a5274600",
     _copy("nbgrader") + " (check_schemas_once)"),
    ("nbgrader", "nbgrader.validator.Validator.validate", "e28ab3d7b7aff99a", _copy("nbgrader") + " (fold_validate_results)"),
    ("jsonschema", "jsonschema.validators.validate", "d6874152191aadc2", _copy("jsonschema")),
    # nbgrader's hooks the plug-ins override (stand-ins)
    ("nbgrader", "nbgrader.preprocessors.clearhiddentests.ClearHiddenTests.preprocess_cell", "bfa20200838bfda1",
     "coursekit/plugins/feedback.py (ClearHiddenTestsInFeedback.preprocess_cell)"),
    ("nbgrader", "nbgrader.preprocessors.saveautogrades.SaveAutoGrades.preprocess", "b31f940077fbd0c5",
     "coursekit/plugins/saved_grades.py (SaveAutoGradesAtOnce.preprocess)"),
    ("nbgrader", "nbgrader.preprocessors.saveautogrades.SaveAutoGrades.preprocess_cell", "0ddfccb84e076499",
     "coursekit/plugins/saved_grades.py (the _add_score/_add_comment it overrides)"),
    ("nbgrader", "nbgrader.preprocessors.getgrades.GetGrades._get_comment", "d9d0748c6cfaa222",
     "coursekit/plugins/feedback_page.py (GetGradesForFeedback._get_comment)"),
    ("nbgrader", "nbgrader.preprocessors.getgrades.GetGrades.preprocess_cell", "418814329c4baaa1",
     "coursekit/plugins/feedback_page.py (the _get_score/_get_comment it overrides)"),
    ("nbgrader", "nbgrader.preprocessors.overwritecells.OverwriteCells.preprocess", "795675d668339e31",
     "coursekit/plugins/released_cells.py (OverwriteCellsFromRelease.gradebook)"),
    ("nbgrader", "nbgrader.preprocessors.overwritecells.OverwriteCells.preprocess_cell", "7aeacec3f0052ab6",
     "coursekit/plugins/released_cells.py (OverwriteCellsFromRelease.preprocess_cell)"),
    ("nbgrader", "nbgrader.preprocessors.overwritecells.OverwriteCells.report_change", "a6863148f99423ec",
     "coursekit/plugins/released_cells.py (OverwriteCellsFromRelease.report_change)"),
    ("nbgrader", "nbgrader.preprocessors.deduplicateids.DeduplicateIds.preprocess", "da609657fb3f311b",
     "coursekit/plugins/duplicates.py (RejectDuplicateIds takes its place)"),
]


def _default(cls: str, trait: str):
    module, _, name = cls.rpartition(".")
    return getattr(importlib.import_module(module), name).class_traits()[trait].default()


def _names(classes) -> list:
    return [c.__name__ for c in classes]


# (package, what is read, the value the course relies on, what to re-check): defaults and lists, compared by value
VALUES = [
    ("nbgrader", "the course id a Gradebook opens without one",
     lambda: inspect.signature(importlib.import_module("nbgrader.api").Gradebook).parameters["course_id"].default,
     lambda: coursekit.settings.DEFAULT_COURSE_ID, "coursekit/settings.py (DEFAULT_COURSE_ID)"),
    ("nbgrader", "Autograde.sanitize_preprocessors holds DeduplicateIds and OverwriteCells",
     lambda: {"DeduplicateIds", "OverwriteCells"} <= set(_names(_default("nbgrader.converters.Autograde", "sanitize_preprocessors"))),
     lambda: True, "coursekit/plugins/duplicates.py and released_cells.py (with_rejected_duplicates, with_release_check)"),
    ("nbgrader", "Autograde.autograde_preprocessors holds SaveAutoGrades",
     lambda: "SaveAutoGrades" in _names(_default("nbgrader.converters.Autograde", "autograde_preprocessors")),
     lambda: True, "coursekit/plugins/saved_grades.py (with_grades_saved_at_once)"),
    ("IPython", "InteractiveShellApp.default_extensions",
     lambda: list(_default("IPython.core.shellapp.InteractiveShellApp", "default_extensions")),
     lambda: ["storemagic"], _copy("ipykernel") + " (new_shell loads storemagic)"),
    ("ipykernel", "IPythonKernel.language_info's name",
     lambda: importlib.import_module("ipykernel.ipkernel").IPythonKernel.language_info["name"],
     lambda: "python", _copy("ipykernel") + " (language_info)"),
]


def _message(package: str, name: str, found: str, expected: str, ours: str) -> str:
    return (f"{package}'s {name} changed (its fingerprint is now {found}, the table says {expected}): "
            f"re-check {ours}, then put the new fingerprint in its row in tests/unit/test_upstream.py")


@pytest.mark.parametrize("package, name, expected, ours", ROWS, ids=[row[1] for row in ROWS])
def test_upstream_source_is_the_one_our_piece_was_written_against(package, name, expected, ours):
    """Has the upstream function or class our piece copies, patches or stands in for kept its source?"""
    found = fingerprint(name)
    assert found == expected, _message(package, name, found, expected, ours)


@pytest.mark.parametrize("package, what, upstream, ours, where", VALUES, ids=[row[1] for row in VALUES])
def test_upstream_value_is_the_one_the_course_relies_on(package, what, upstream, ours, where):
    """Are the upstream defaults and lists the course compares with, or replaces entries of, still as they were?"""
    assert upstream() == ours(), f"{package}'s {what} changed: now {upstream()!r}, the course expects {ours()!r}; re-check {where}"


def test_does_a_changed_source_fail_its_row_naming_our_copy():
    """A row whose fingerprint no longer matches fails with the package, the name and our module."""
    package, name, _, ours = ROWS[0]
    with pytest.raises(AssertionError, match=r"ipykernel's ipykernel.ipkernel.IPythonKernel.do_execute changed .*"
                                              r"re-check our copy in coursekit/upstream/ipykernel.py"):
        test_upstream_source_is_the_one_our_piece_was_written_against(package, name, "0" * 16, ours)


def test_is_the_fingerprint_blind_to_comments_and_layout_only():
    """Comments, docstrings and line breaks leave the fingerprint as it is; a changed expression does not."""
    import types

    def define(source):
        module = types.ModuleType("probe")
        module.__file__ = "<probe>"
        code = compile(source, "<probe>", "exec")
        exec(code, module.__dict__)
        return module

    base = "def f(x):\n    return x + 1\n"
    variants = {"def f(x):\n    '''doc'''\n    # why\n    return (x +\n            1)\n": True,
                "def f(x):\n    return x + 2\n": False}
    import ast
    import hashlib
    from coursekit.upstream import _without_docstrings

    def digest(source):
        return hashlib.sha256(ast.unparse(_without_docstrings(ast.parse(source))).encode()).hexdigest()[:16]

    for variant, same in variants.items():
        assert (digest(variant) == digest(base)) is same, variant
    assert len(fingerprint("jsonschema.validators.validate")) == 16


def test_has_every_upstream_module_rows_and_every_row_a_place():
    """Does each module of coursekit/upstream/ have rows naming it, and does every place a row names exist?"""
    modules = {path.stem for path in UPSTREAM.glob("*.py") if path.stem != "__init__"}
    named = {ours.split("coursekit/upstream/")[1].split(".py")[0] for *_, ours in ROWS if "coursekit/upstream/" in ours}
    assert modules - named == set(), f"coursekit/upstream/ modules without a row in tests/unit/test_upstream.py: {modules - named}"
    for package, name, _, ours in ROWS:
        assert name.split(".")[0] == package, f"row {name}: its package is {name.split('.')[0]}, the row says {package}"
        path = ours.split(" ")[ours.split(" ").index("in") + 1] if " in coursekit/" in ours else ours.split(" ")[0]
        assert (REPO / "autograde" / path).is_file(), f"row {name} names {path}, which does not exist under autograde/"


def _outside_upstream():
    for path in sorted(COURSEKIT.rglob("*.py")):
        if UPSTREAM not in path.parents and "labextension" not in path.parts:
            yield path, ast.parse(path.read_text(encoding="utf-8"))


def _upstream_names(tree) -> set:
    """Names a module binds to upstream packages, their modules and classes (``from nbgrader import api``)."""
    bound = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.split(".")[0] in PACKAGES:
            bound |= {alias.asname or alias.name for alias in node.names}
        elif isinstance(node, ast.Import):
            bound |= {(alias.asname or alias.name).split(".")[0] for alias in node.names
                      if alias.name.split(".")[0] in PACKAGES}
    return bound


def test_is_no_upstream_module_or_class_patched_outside_coursekit_upstream():
    """No assignment into an upstream module or class (``api.create_engine = …``, ``setattr(Validator, …)``) outside
    coursekit/upstream/: patches live there, applied by the commands that want them."""
    found = []
    for path, tree in _outside_upstream():
        bound = _upstream_names(tree)
        for node in ast.walk(tree):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(
                node, (ast.AugAssign, ast.AnnAssign)) else []
            for target in targets:
                root = target
                while isinstance(root, ast.Attribute):
                    root = root.value
                if isinstance(target, ast.Attribute) and isinstance(root, ast.Name) and root.id in bound:
                    found.append(f"{path.relative_to(REPO)}:{node.lineno} {ast.unparse(target)}")
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "setattr" \
                    and node.args and isinstance(node.args[0], ast.Name) and node.args[0].id in bound:
                found.append(f"{path.relative_to(REPO)}:{node.lineno} {ast.unparse(node)}")
    assert not found, f"patches of upstream code outside coursekit/upstream/: {found}"


def test_is_no_private_upstream_name_called_outside_coursekit_upstream():
    """No ``x._private`` reached on an upstream module, class or instance made from one (``ClearHiddenTests()._remove…``),
    nor a private name that coursekit/upstream/ reaches, outside coursekit/upstream/ (overrides are the next test's)."""
    private_in_upstream = set()
    for path in UPSTREAM.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Attribute) and node.attr.startswith("_") and not node.attr.startswith("__") \
                    and not (isinstance(node.value, ast.Name) and node.value.id in ("self", "cls")):
                private_in_upstream.add(node.attr)
    private_in_upstream -= {"_VALIDATORS", "_ENGINES", "_FACTORIES", "_LOCK", "_create_all", "_unique", "_notebook",
                            "_source", "_graded", "_without_docstrings"}  # our own
    found = []
    for path, tree in _outside_upstream():
        bound = _upstream_names(tree)
        for node in ast.walk(tree):
            if not isinstance(node, ast.Attribute) or not node.attr.startswith("_") or node.attr.startswith("__"):
                continue
            base = node.value.func if isinstance(node.value, ast.Call) else node.value
            on_upstream = isinstance(base, ast.Name) and base.id in bound
            if on_upstream or (node.attr in private_in_upstream and not (isinstance(base, ast.Name) and base.id == "self")):
                found.append(f"{path.relative_to(REPO)}:{node.lineno} {ast.unparse(node)}")
    assert not found, f"private upstream names used outside coursekit/upstream/: {found}"


def _coursekit_classes():
    for info in pkgutil.walk_packages(coursekit.__path__, "coursekit."):
        if info.name.endswith("__main__"):
            continue
        module = importlib.import_module(info.name)
        for cls in vars(module).values():
            if inspect.isclass(cls) and cls.__module__ == module.__name__:
                yield cls


def test_has_every_override_of_a_private_upstream_method_a_row():
    """A coursekit class overriding an upstream class's private method (``GetGrades._get_score``) leans on when and how
    upstream calls it: the method, or the one calling it, must have a row."""
    rows = {name for _, name, _, _ in ROWS}
    missing = []
    for cls in _coursekit_classes():
        for attr, value in vars(cls).items():
            if not attr.startswith("_") or attr.startswith("__") or not (inspect.isfunction(value) or isinstance(value, property)):
                continue
            for base in cls.__mro__[1:]:
                if base.__module__.split(".")[0] in PACKAGES and attr in vars(base):
                    name = f"{base.__module__}.{base.__qualname__}.{attr}"
                    caller = f"{base.__module__}.{base.__qualname__}.preprocess_cell"
                    if name not in rows and caller not in rows:
                        missing.append(f"{cls.__module__}.{cls.__qualname__}.{attr} overrides {name}")
                    break
    assert not missing, f"overrides of private upstream methods without a row in tests/unit/test_upstream.py: {missing}"
