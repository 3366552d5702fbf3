"""Do a call's arguments and results cross between the grader and the student's kernel as the lab's contract says,
and does anything else, whatever the student's process sends or returns, end as one refusal of that value only
(coursekit/sandbox/calls.py)?"""
import base64

import numpy as np
import pytest

from coursekit.sandbox.calls import MAX_BYTES, Unreadable, Unsendable, decode, encode, write_back


def test_do_views_of_one_buffer_cross_as_views_of_one_buffer():
    """A strided view and the whole array go over as one buffer; what the far side writes through the view comes
    back into the caller's array, the elements around it untouched?"""
    buffer = np.arange(36, dtype=np.float32).reshape(4, 9)
    message, roots = encode((buffer[:, :8:2], buffer))
    (view, whole), buffers = decode(message)
    assert len(buffers) == 1 and np.shares_memory(view, whole)
    view += 1
    write_back(roots, [{"dtype": b.dtype.str, "shape": list(b.shape), "data": base64.b64encode(b.tobytes()).decode()}
                       for b in buffers])
    assert (buffer[:, :8:2] == np.arange(36, dtype=np.float32).reshape(4, 9)[:, :8:2] + 1).all()
    assert (buffer[:, 1::2] == np.arange(36, dtype=np.float32).reshape(4, 9)[:, 1::2]).all()


def _buffer(dtype="<f8", shape=(1,), data=b"\0" * 8):
    return {"dtype": dtype, "shape": list(shape), "data": base64.b64encode(data).decode()}


REFUSED = {  # what a student's process may send instead of an encoded value -> a piece of the refusal
    "not a message": ([], "not an encoded call"),
    "an object dtype": ({"values": [], "buffers": [_buffer("|O")]}, "never sent"),
    "a buffer too large": ({"values": [], "buffers": [{"dtype": "|u1", "shape": [MAX_BYTES * 2],
                                                        "data": "A" * (MAX_BYTES * 2)}]}, f"over {MAX_BYTES}"),
    "not base64": ({"values": [], "buffers": [{"dtype": "<f8", "shape": [1], "data": "!!!"}]}, "not base64"),
    "a size not its shape's": ({"values": [], "buffers": [_buffer(shape=(2,))]}, "not its shape's"),
    "a view outside its buffer": ({"values": [{"view": 0, "dtype": "<f8", "shape": [4], "strides": [8],
                                               "offset": 0}], "buffers": [_buffer()]}, "outside its buffer"),
    "a byte of -1": ({"values": [{"scalar": "|u1", "value": -1}], "buffers": []}, "numpy cannot build"),
    "a shape whose product overflows": ({"values": [], "buffers": [_buffer(shape=(2 ** 40, 2 ** 40))]},
                                        "numpy cannot build|not its shape's"),
}


@pytest.mark.parametrize("sent, said", REFUSED.values(), ids=REFUSED)
def test_is_anything_else_refused_as_unreadable_and_only_so(sent, said):
    with pytest.raises(Unreadable, match=said):
        decode(sent)


UNSENDABLE = {  # what a student's function may return -> a piece of the refusal
    "a view of terabytes": (np.broadcast_to(np.zeros(1), (10 ** 6, 10 ** 6)), "bytes"),
    "32 MB": (np.zeros(4 * 1024 ** 2), "bytes"),
    "an object": (object(), "cannot send a object"),
    "lists nested past recursion": ("nested", "nested too deeply"),
}


@pytest.mark.parametrize("value, said", UNSENDABLE.values(), ids=UNSENDABLE)
def test_is_a_value_that_cannot_cross_refused_before_it_costs_memory(value, said):
    """Refused as Unsendable (the kernel then reports no return value and goes on), never expanded or sent?"""
    if isinstance(value, str):  # built here: the table would hold it for the whole run
        value = []
        for _ in range(100_000):
            value = [value]
    with pytest.raises(Unsendable, match=said):
        encode((value,))
