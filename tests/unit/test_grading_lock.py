"""One grader at a time (coursekit.grading.lock): make grade against the service's jobs, in real processes."""
import multiprocessing
import time

from coursekit.grading import lock


def _hold_shared(course, started, release, go=None):
    if go is not None:
        go.wait(10)
    with lock.shared(course):
        started.set()
        release.wait(10)


def test_exclusive_waits_for_a_shared_job_and_names_the_wait(tmp_path):
    """Does make grade wait for the service's job in progress, and say so once?"""
    context = multiprocessing.get_context("fork")
    started, release = context.Event(), context.Event()
    job = context.Process(target=_hold_shared, args=(str(tmp_path), started, release))
    job.start()
    try:
        assert started.wait(20)
        said = []
        begun = time.monotonic()
        context_released = context.Process(target=_release_after, args=(release, 0.5))
        context_released.start()
        with lock.exclusive(tmp_path, "make grade", notify=said.append, lang="en"):
            waited = time.monotonic() - begun
            assert lock.gate_holder(tmp_path).startswith("make grade (pid ")
        assert waited >= 0.4
        assert said == ["waiting for the grading service to finish the submission it is grading …"]
        assert lock.gate_holder(tmp_path) == ""
    finally:
        release.set()
        job.join(10)
        context_released.join(10)


def _release_after(event, seconds):
    time.sleep(seconds)
    event.set()


def test_the_service_waits_while_make_grade_holds_the_course(tmp_path):
    """Does a new service job wait until make grade is done, even though no job holds the lock yet?"""
    context = multiprocessing.get_context("fork")
    started, release, go = context.Event(), context.Event(), context.Event()
    # forked before the lock is taken: a child forked later would share (and keep) the holder's lock
    job = context.Process(target=_hold_shared, args=(str(tmp_path), started, release, go))
    job.start()
    with lock.exclusive(tmp_path, "make grade"):
        go.set()
        assert not started.wait(1.0)
    assert started.wait(10)
    release.set()
    job.join(10)


def test_a_killed_holder_leaves_the_course_free(tmp_path):
    """Is the lock gone with a SIGKILLed make grade (flock dies with its process)?"""
    context = multiprocessing.get_context("fork")
    holder = context.Process(target=_hold_exclusive_forever, args=(str(tmp_path),))
    holder.start()
    deadline = time.monotonic() + 20
    while not lock.gate_holder(tmp_path) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert lock.gate_holder(tmp_path)
    holder.kill()
    holder.join()
    assert lock.gate_holder(tmp_path) == ""
    with lock.shared(tmp_path):
        pass


def _hold_exclusive_forever(course):
    with lock.exclusive(course, "make grade"):
        time.sleep(60)
