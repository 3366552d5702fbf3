"""Can student code be called without it printing, warning, raising or hiding a rebound ``out``?"""
import functools
import sys
import warnings

import numpy as np
import pytest

from attnkit.safecall import Call, call_student, describe_exception


def test_returned_value_is_kept():
    """Is the return value passed through, with no error and no rebinding?"""
    assert call_student(lambda a, b: a + b, (2, 3)) == Call(returned=5)


def test_exception_becomes_one_line():
    """Does an exception become 'Type: first line', cut at 80 characters?"""
    def boom():
        raise ValueError("x" * 100 + "\nsecond line")
    call = call_student(boom, ())
    assert call.error == "ValueError: " + "x" * 80 and call.returned is None
    assert describe_exception(KeyError()) == "KeyError"


def test_system_exit_is_caught_but_ctrl_c_is_not():
    """Is sys.exit() in a student cell a finding, while KeyboardInterrupt still stops the caller?"""
    assert call_student(sys.exit, (2,)).error == "SystemExit: 2"
    def interrupted():
        raise KeyboardInterrupt
    with pytest.raises(KeyboardInterrupt):
        call_student(interrupted, ())


def test_prints_and_warnings_do_not_escape(capsys):
    """Do stdout, stderr, Python warnings and numpy overflow warnings stay inside the call?"""
    def noisy():
        print("hello")
        print("oops", file=sys.stderr)
        warnings.warn("careful")
        return np.exp(np.float32(1000.0))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        call = call_student(noisy, ())
    assert call.returned == np.inf and caught == []
    assert capsys.readouterr() == ("", "")


def rebinds(out):
    out = np.ones(3)
    return 0


def writes(out):
    out[...] = 1.0
    out = out  # same object: not a rebinding
    return 0


@pytest.mark.parametrize("fn, rebound", [(rebinds, True), (writes, False)])
def test_rebinding_of_the_watched_parameter_is_seen(fn, rebound):
    """Is ``out = ...`` told apart from writing into ``out``?"""
    assert call_student(fn, (np.zeros(3),), watch=0).rebound is rebound
    assert call_student(fn, (np.zeros(3),)).rebound is False  # nothing watched


def test_rebinding_seen_through_a_decorator_and_before_an_exception():
    """Does the watch find the student's frame behind functools.wraps, even when it then raises?"""
    def logged(fn):
        @functools.wraps(fn)
        def wrapper(*args):
            return fn(*args)
        return wrapper

    @logged
    def rebind_then_fail(out):
        out = out + 1
        raise RuntimeError("late")

    call = call_student(rebind_then_fail, (np.zeros(2),), watch=0)
    assert call.rebound and call.error == "RuntimeError: late"


def test_tracer_restored_and_builtins_accepted():
    """Is the previous trace function back afterwards, and can a ufunc (no __code__) be watched?"""
    before = sys.gettrace()
    call = call_student(np.add, (np.zeros(2), np.ones(2)), watch=0)
    assert sys.gettrace() is before
    np.testing.assert_array_equal(call.returned, np.ones(2))
    assert call.rebound is False
