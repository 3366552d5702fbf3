"""``nbgrader export --exporter=coursekit.export.PerCellExportPlugin``: the name instructors type.

The plugin lives in :mod:`coursekit.plugins.export`; this module only keeps its documented name.
"""
from .plugins.export import PerCellExportPlugin

__all__ = ["PerCellExportPlugin"]
