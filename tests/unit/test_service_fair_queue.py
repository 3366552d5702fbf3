"""Who is graded next (coursekit.service.fair_queue): newest submission only, students in turn."""
from coursekit.service.fair_queue import GRADE, RELEASE, FairQueue, Job

A = "ch04_attention"


def job(student, stamp, kind=GRADE, arrived=0):
    return Job((A, student), kind, f"2026-12-01 10:00:{stamp:02d}.000000 UTC", arrived=arrived)


def test_only_the_newest_pending_submission_is_kept():
    """Do 20 submissions in a row leave one pending job, the newest, in the student's first place?"""
    queue = FairQueue()
    queue.offer(job("b", 0, arrived=5))
    replaced = [queue.offer(job("a", n, arrived=10 + n)) for n in range(20)]
    assert len(queue) == 2 and replaced[0] is None and replaced[-1] == job("a", 18, arrived=10)
    assert queue.take() == job("b", 0, arrived=5)
    assert queue.take() == job("a", 19, arrived=10)
    assert queue.take() is None


def test_a_student_just_served_waits_behind_the_others():
    """While a's grading runs, a resubmits and b submits: is b next, before a's new submission?"""
    queue = FairQueue()
    queue.offer(job("a", 0, arrived=0))
    first = queue.take()
    for n in range(1, 21):
        queue.offer(job("a", n, arrived=n))
    queue.offer(job("b", 30, arrived=30))
    assert queue.take().student == "b"  # a is still busy, and served last anyway
    queue.done(first.key)
    queue.offer(job("c", 40, arrived=40))
    assert queue.take().student == "c"  # never served: before a, who was
    assert queue.take() == job("a", 20, arrived=1)


def test_one_student_never_graded_twice_at_once():
    """Is a busy student's newer submission held back until the running job is done?"""
    queue = FairQueue()
    queue.offer(job("a", 0))
    running = queue.take()
    queue.offer(job("a", 1))
    assert queue.take() is None and queue.is_busy(running.key)
    queue.done(running.key)
    assert queue.take() == job("a", 1)


def test_release_never_replaces_a_pending_grading():
    """Does a waiting feedback's release give way to a newer submission's grading (which releases too)?"""
    queue = FairQueue()
    queue.offer(job("a", 1))
    assert queue.offer(job("a", 0, kind=RELEASE)) is None
    assert queue.pending((A, "a")).kind == GRADE
    queue2 = FairQueue()
    queue2.offer(job("a", 0, kind=RELEASE))
    queue2.offer(job("a", 1))
    assert queue2.take().kind == GRADE
