"""What ``make hub-remove`` keeps before it deletes a hub: the instructor's course, as one dated archive.

The instructor's ``~/course`` holds the term's work: the gradebook (every grade, every mark and comment), the
submissions, the autograded notebooks and feedback, the marking page's state, the grading service's journal and
logs. :func:`archive_course` writes all of it into ``<folder>/hub-course-<YYYYmmdd-HHMMSS>.tar.gz`` (mode 600: the
students' work) and returns the file, which ``tar -xzf`` opens again (the gradebook readable by nbgrader as it
was). The users' shared environment and the hub's own files are not kept: ``make hub`` makes them again.
"""
import datetime
import pathlib
import tarfile

__all__ = ["ARCHIVES", "archive_course"]

ARCHIVES = pathlib.Path(__file__).resolve().parents[2] / "hub-archives"  # in the repository, git-ignored
_SKIPPED = {"__pycache__", ".ipynb_checkpoints"}


def archive_course(course: pathlib.Path, folder: pathlib.Path = ARCHIVES, now=datetime.datetime.now) -> pathlib.Path:
    """``course`` as ``folder/hub-course-<date>.tar.gz`` (its folder named ``course`` inside); the archive's path."""
    course, folder = pathlib.Path(course), pathlib.Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    folder.chmod(0o700)
    path = folder / f"hub-course-{now():%Y%m%d-%H%M%S}.tar.gz"
    with tarfile.open(path, "w:gz") as archive:
        archive.add(course, arcname="course", filter=lambda info: None if _skipped(info.name) else info)
    path.chmod(0o600)
    return path


def _skipped(name: str) -> bool:
    return bool(_SKIPPED & set(pathlib.PurePosixPath(name).parts))
