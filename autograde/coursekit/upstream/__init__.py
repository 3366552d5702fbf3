"""What the course takes from upstream packages' insides: one module per package, each piece fingerprinted.

Where a package offers no public hook for what grading needs, the course re-writes a piece of it (a copy)
or changes it at run time (a patch). Each copy and patch sits in the module named after the package, and
``tests/unit/test_upstream.py`` keeps, per piece, a fingerprint of the upstream source it was taken from
(:func:`fingerprint`): when an upgrade changes that source, the row fails and names the module to re-check.

* :mod:`.ipykernel` — the grading kernel's shell, wired as ipykernel wires it, and one cell run as its
  ``do_execute`` runs it (used by :mod:`coursekit.sandbox.cells`);
* :mod:`.jupyter_client` — the ``Session`` the kernel's shell sends its messages through;
* :mod:`.jsonschema` — ``jsonschema.validate`` with each schema checked once;
* :mod:`.nbclient` — the signal handlers nbclient leaves behind, put back;
* :mod:`.nbconvert` — ``HTMLExporter.from_notebook_node`` without its BeautifulSoup pass;
* :mod:`.nbgrader` — nbgrader's rules the course's plug-ins re-use (hidden regions, auto scores and comments,
  cell look-ups, the feedback pages and submissions in the exchange, its defaults) and its three patches
  (:func:`.nbgrader.share_engines`, :func:`.nbgrader.check_schemas_once`, :func:`.nbgrader.fold_validate_results`).

Patches are applied by the commands that want them, never on import: importing this package, or
``nbgrader_config.py``, changes nothing. Code that *stands in* for an upstream interface — the kernel manager
and the kernel client nbclient drives (:mod:`coursekit.kernel.manager`, :mod:`coursekit.kernel.client`),
the plug-ins that override nbgrader's preprocessors — stays with the plug-ins; the table fingerprints the
upstream code that defines that interface too. A patch proposal for each missing hook: ``docs/upstream/``.
"""
import ast
import hashlib
import importlib
import inspect
import textwrap

__all__ = ["fingerprint", "resolve"]


def resolve(name: str):
    """The object a dotted ``name`` names (``nbclient.client.NotebookClient.async_execute_cell``): the longest
    importable module prefix, then attributes (a property's getter)."""
    parts = name.split(".")
    for split in range(len(parts), 0, -1):
        try:
            found = importlib.import_module(".".join(parts[:split]))
        except ImportError:
            continue
        for attribute in parts[split:]:
            found = inspect.getattr_static(found, attribute) if inspect.isclass(found) else getattr(found, attribute)
            found = found.fget if isinstance(found, property) else getattr(found, "__func__", found)
        return found
    raise ImportError(f"no module in {name!r} can be imported")


def _without_docstrings(tree: ast.AST) -> ast.AST:
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and body \
                and isinstance(body[0], ast.Expr) and isinstance(getattr(body[0], "value", None), ast.Constant) \
                and isinstance(body[0].value.value, str):
            node.body = body[1:] or [ast.Pass()]
    return tree


def fingerprint(name: str) -> str:
    """16 hex digits of the sha256 of the source of ``name``, normalised: parsed and written back without comments,
    docstrings or layout, so only a change of what the code does (or says in its strings) changes it."""
    source = textwrap.dedent(inspect.getsource(resolve(name)))
    code = ast.unparse(_without_docstrings(ast.parse(source)))
    return hashlib.sha256(code.encode("utf-8")).hexdigest()[:16]
