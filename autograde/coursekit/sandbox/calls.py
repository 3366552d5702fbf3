"""A student's function called from the grader process: its arguments and results on the wire.

The grader process (:mod:`.grader_host`) never runs student code: it sends a call's arguments to the
student's kernel (:mod:`.cells`), which calls the function and sends back what it returned and what
became of every array it was given. Arrays travel with their *buffers*: all arguments that are views
of one array (a column slice, a strided view, one head of a ``[H, T, S]`` buffer) share one buffer,
rebuilt in the kernel as one array with the same views into it, and sent back whole after the call.
So writing through a view lands in the caller's array, exactly as the lab's in-place contract says,
and the grader sees whether an input was left unchanged.

What comes back is the student's process talking: :func:`decode` takes only plain values, numeric
arrays of a bounded size and views that fit inside their buffer, and raises :class:`Unreadable`
(and nothing else) for anything else. In the kernel, :func:`encode` refuses with :class:`Unsendable`
what cannot cross: another type, or an array over :data:`MAX_BYTES` (a view of a huge logical shape
is never expanded to find out).
"""
import base64
import json

import numpy as np

__all__ = ["MAX_BYTES", "Unreadable", "Unsendable", "encode", "decode", "buffers_of", "write_back"]

MAX_BYTES = 16 * 1024 ** 2  # one buffer: the lab's arrays are a few kilobytes
_KINDS = set("biuf")  # bool, integers, floats: never objects, strings or records


class Unreadable(ValueError):
    """A value on the wire that is not one :func:`encode` could have made."""


class Unsendable(TypeError):
    """A value :func:`encode` does not send: of another type, or too large."""


def _root(array: np.ndarray) -> np.ndarray:
    while isinstance(array.base, np.ndarray):
        array = array.base
    return array


def _encode_value(value, roots: list, ids: dict):
    if isinstance(value, np.ndarray):
        if value.nbytes > MAX_BYTES:  # its logical size: a broadcast view of a few bytes can claim terabytes
            raise Unsendable(f"an array of {value.nbytes} bytes (at most {MAX_BYTES} cross)")
        root = _root(value)
        if not root.flags.c_contiguous:
            root = value = np.ascontiguousarray(value)  # not a view of anything the caller keeps
        if id(root) not in ids:
            ids[id(root)] = len(roots)
            roots.append(root)
        offset = value.__array_interface__["data"][0] - root.__array_interface__["data"][0]
        return {"view": ids[id(root)], "dtype": value.dtype.str, "shape": list(value.shape),
                "strides": list(value.strides), "offset": offset}
    if isinstance(value, np.generic):
        return {"scalar": value.dtype.str, "value": value.item()}
    if value is None or isinstance(value, (bool, int, float, str)):
        return {"value": value}
    if isinstance(value, (list, tuple)):
        return {"items": [_encode_value(v, roots, ids) for v in value], "tuple": isinstance(value, tuple)}
    raise Unsendable(f"cannot send a {type(value).__name__} across")


def encode(values):
    """``({"values": [...], "buffers": [...]}, the buffers' arrays)`` for a tuple of arguments (or one returned
    value, as a 1-tuple). The arrays are what :func:`write_back` copies the call's results into. At most
    :data:`MAX_BYTES` in all (arrays and the description of the values), else :class:`Unsendable`."""
    roots, ids = [], {}
    try:
        encoded = [_encode_value(v, roots, ids) for v in values]
    except RecursionError:
        raise Unsendable("values nested too deeply to cross") from None
    if sum(root.nbytes for root in roots) > MAX_BYTES or len(json.dumps(encoded)) > MAX_BYTES:
        raise Unsendable(f"more than {MAX_BYTES} bytes in all")
    return {"values": encoded, "buffers": [_buffer(root) for root in roots]}, roots


def _buffer(root: np.ndarray) -> dict:
    return {"dtype": root.dtype.str, "shape": list(root.shape),
            "data": base64.b64encode(root.tobytes()).decode("ascii")}


def buffers_of(buffers) -> list:
    """``buffers`` (the arrays :func:`decode` rebuilt) as they are now: what a call sends back."""
    return [_buffer(buffer) for buffer in buffers]


def _dtype(text) -> np.dtype:
    try:
        dtype = np.dtype(str(text))
    except TypeError as exc:
        raise Unreadable(f"not a dtype: {text!r}") from exc
    if dtype.kind not in _KINDS or dtype.itemsize > 16:
        raise Unreadable(f"an array of {dtype} is never sent")
    return dtype


def _rebuild_buffer(spec) -> np.ndarray:
    if not isinstance(spec, dict) or not isinstance(spec.get("data"), str):
        raise Unreadable("a buffer without data")
    dtype, shape = _dtype(spec.get("dtype")), _shape(spec.get("shape"))
    if len(spec["data"]) > MAX_BYTES * 4 // 3 + 4:
        raise Unreadable(f"a buffer over {MAX_BYTES} bytes")
    try:
        data = base64.b64decode(spec["data"], validate=True)
    except ValueError as exc:
        raise Unreadable("a buffer that is not base64") from exc
    if len(data) != dtype.itemsize * int(np.prod(shape, dtype=np.int64)):
        raise Unreadable("a buffer whose size is not its shape's")
    return np.frombuffer(data, dtype).reshape(shape).copy()  # writable, owned


def _shape(value) -> tuple:
    if not isinstance(value, list) or len(value) > 32 or not all(type(n) is int and 0 <= n for n in value):
        raise Unreadable(f"not a shape: {value!r}")
    return tuple(value)


def _decode_value(spec, buffers: list):
    if not isinstance(spec, dict):
        raise Unreadable("a value that is not described")
    if "scalar" in spec:
        if not isinstance(spec.get("value"), (bool, int, float)):
            raise Unreadable("a numpy scalar that is not a number")
        return _dtype(spec["scalar"]).type(spec["value"])
    if "value" in spec:
        if spec["value"] is not None and not isinstance(spec["value"], (bool, int, float, str)):
            raise Unreadable("a plain value that is not plain")
        return spec["value"]
    if "items" in spec and isinstance(spec["items"], list):
        items = [_decode_value(v, buffers) for v in spec["items"]]
        return tuple(items) if spec.get("tuple") else items
    if "view" in spec:
        return _view(spec, buffers)
    raise Unreadable("an unknown kind of value")


def _view(spec, buffers: list) -> np.ndarray:
    index = spec["view"]
    if type(index) is not int or not 0 <= index < len(buffers):
        raise Unreadable("a view of no buffer")
    base, dtype, shape = buffers[index], _dtype(spec.get("dtype")), _shape(spec.get("shape"))
    strides, offset = spec.get("strides"), spec.get("offset")
    if not isinstance(strides, list) or len(strides) != len(shape) or not all(type(s) is int for s in strides) \
            or type(offset) is not int:
        raise Unreadable("a view without strides and offset")
    low = offset + sum(s * (n - 1) for s, n in zip(strides, shape) if s < 0 and n)
    high = offset + sum(s * (n - 1) for s, n in zip(strides, shape) if s > 0 and n) + dtype.itemsize
    if 0 in shape:
        low, high = offset, offset
    if low < 0 or high > base.nbytes or offset < 0:
        raise Unreadable("a view outside its buffer")
    return np.ndarray(shape, dtype, buffer=base, offset=offset, strides=strides)


def decode(message) -> tuple:
    """The values :func:`encode` described, views into freshly rebuilt buffers; ``(values, buffers)``. Whatever is
    wrong with ``message`` raises :class:`Unreadable`, never another exception."""
    if not isinstance(message, dict) or not isinstance(message.get("values"), list) \
            or not isinstance(message.get("buffers"), list):
        raise Unreadable("not an encoded call")
    try:
        buffers = [_rebuild_buffer(spec) for spec in message["buffers"]]
        return tuple(_decode_value(v, buffers) for v in message["values"]), buffers
    except Unreadable:
        raise
    except (ArithmeticError, ValueError, TypeError, MemoryError, RecursionError) as exc:  # numpy's own refusals
        raise Unreadable(f"a value numpy cannot build ({type(exc).__name__}: {exc})") from None


def write_back(roots: list, sent_back: list) -> None:
    """Copy the buffers a call sent back into the caller's own arrays (``roots``: as :func:`encode` gave them)."""
    if not isinstance(sent_back, list) or len(sent_back) != len(roots):
        raise Unreadable(f"not the {len(roots)} buffers that were sent came back")
    for root, spec in zip(roots, sent_back):
        new = decode({"values": [], "buffers": [spec]})[1][0]
        if new.shape != root.shape or new.dtype != root.dtype:
            raise Unreadable("a buffer came back with another shape or dtype")
        if root.flags.writeable:
            np.copyto(root, new)
