"""Binary frames between the trusted grader and the sandboxed worker.

A frame is ``>II`` (header length, payload length), a UTF-8 JSON header, then the raw
little-endian bytes of every array the header mentions, in order. Arrays appear inside
header values as ``{"$array": i}``; ``header["arrays"][i]`` gives their dtype and shape.

Nothing here unpickles: a submission can reach the worker's end of the pipe and send
anything, so the reading side trusts no byte it has not checked against a cap, a dtype
whitelist and a shape. This module imports only the standard library and numpy because
the worker runs it from a copy inside the sandbox, away from the rest of the grader.
"""

from __future__ import annotations

import itertools
import json
import math
import os
import select
import struct
import sys
import time
from typing import Any

import numpy as np

PREFIX = struct.Struct(">II")
LITTLE_ENDIAN = sys.byteorder == "little"
MAX_HEADER_BYTES = 256 * 1024
MAX_PAYLOAD_BYTES = 64 * 1024 * 1024
MAX_NDIM = 8
MAX_NESTING = 4

# Only plain numeric dtypes cross the wire; object, string and complex arrays are
# answered with a clear error instead.
ALLOWED_DTYPES = frozenset(
    ["|b1", "|i1", "|u1", "<i2", "<u2", "<i4", "<u4", "<i8", "<u8", "<f2", "<f4", "<f8"]
)


DTYPES = {name: np.dtype(name) for name in ALLOWED_DTYPES}


class WireError(Exception):
    """A frame broke the protocol: too large, malformed, or the pipe closed early."""


class PipeClosed(WireError):
    """The other end closed the pipe (for the trusted side: the worker died)."""


class Deadline(WireError):
    """No complete frame arrived before the deadline."""


def _plain_array(value: Any) -> np.ndarray:
    """``value`` as a contiguous, little-endian, exact ``numpy.ndarray`` (a copy unless it is one)."""
    if type(value) is np.ndarray and value.dtype.byteorder in "<|" and value.flags.c_contiguous:
        return value  # the common case, whose bytes encode() copies anyway
    if type(value) is np.ndarray and value.dtype.byteorder == "=" and LITTLE_ENDIAN and value.flags.c_contiguous:
        return value
    array = np.array(value, copy=True)
    if type(array) is not np.ndarray:
        array = array.view(np.ndarray)
    dtype = array.dtype.newbyteorder("<") if array.dtype.byteorder == ">" else array.dtype
    return array.astype(dtype, order="C", copy=False)  # keeps 0-d arrays 0-d


def encode(header: dict[str, Any], arrays: list[np.ndarray]) -> bytes:
    """Serialise a header whose values refer to ``arrays`` by index."""
    specs = []
    chunks = []
    for array in arrays:
        plain = _plain_array(array)
        specs.append({"dtype": plain.dtype.str, "shape": list(plain.shape)})
        chunks.append(plain.tobytes())
    body = json.dumps({**header, "arrays": specs}, allow_nan=True).encode("utf-8")
    payload = b"".join(chunks)
    return PREFIX.pack(len(body), len(payload)) + body + payload


def answer_frame(value: Any, args_after: list[Any] | None = None) -> bytes:
    """The frame a worker sends for a call that returned ``value`` (and, when asked, the
    arguments as the call left them). The grader builds the reference's the same way, to
    tell a reply that is byte for byte the reference's."""
    packer = ArrayPacker()
    header = {"status": "ok", "value": packer.pack(value)}
    if args_after is not None:
        header["args_after"] = [packer.pack(arg) for arg in args_after]
    return encode(header, packer.arrays)


class ArrayPacker:
    """Turns nested Python values into JSON-able values plus a list of arrays.

    Tuples stay sequences (``(out, A)``), and so does a list of arrays (``return [out,
    A]``), or of nested lists that make no one array (``[out.tolist(), A.tolist()]``), and
    what Python unpacks but numpy does not read (a generator, ``dict.values()``, an array of
    objects); other lists, scalars and arrays become arrays, so a head that returns nested
    lists is graded like one that returns an ndarray. Floats wider than float64
    (``np.longdouble``) are sent as float64, which the checks compare in anyway.
    """

    def __init__(self) -> None:
        self.arrays: list[np.ndarray] = []

    def pack(self, value: Any, depth: int = 0) -> Any:
        if value is None:
            return None
        sequence = isinstance(value, tuple) or (
            type(value) is list and bool(value) and all(isinstance(item, np.ndarray) for item in value)
        )
        if sequence and depth < MAX_NESTING:
            return {"$tuple": [self.pack(item, depth + 1) for item in value]}
        parts = _unpacked(value) if depth < MAX_NESTING else None
        if parts is not None:  # a generator, dict.values(), an array of objects: what `out, A = value` reads
            return {"$tuple": [self.pack(item, depth + 1) for item in parts]}
        try:
            array = _plain_array(value)
        except Exception as error:  # a ragged list, a custom object, ...
            if type(value) is list and value and depth < MAX_NESTING and all(type(item) is list for item in value):
                # [out.tolist(), A.tolist()]: parts of other shapes, as `out, A = ...` unpacks them.
                return {"$tuple": [self.pack(item, depth + 1) for item in value]}
            return {"$unsupported": f"a {type(value).__name__} ({str(error)[:200]})"}
        if array.dtype.kind == "f" and array.dtype.itemsize > 8:
            array = array.astype("<f8")
        if array.dtype.str not in ALLOWED_DTYPES:
            described = f"an array of dtype {array.dtype}" if isinstance(value, np.ndarray) else f"a {type(value).__name__}"
            return {"$unsupported": described}
        self.arrays.append(array)
        return {"$array": len(self.arrays) - 1}


# The most parts a value that is neither a list, a tuple nor an array is read into (a
# generator may never end).
MOST_PARTS = 8


def _unpacked(value: Any) -> list[Any] | None:
    """The parts of a value that Python unpacks but numpy does not read as one array: a
    generator or an iterator, a dict's keys, values or items, a 1-D array of objects; None
    for anything else (a str, a dict, a number, an array of numbers), or one of more parts."""
    if isinstance(value, np.ndarray):
        return list(value) if value.dtype == object and value.ndim == 1 and 0 < len(value) <= MOST_PARTS else None
    if isinstance(value, (str, bytes, dict, list, tuple)) or not hasattr(value, "__iter__"):
        return None
    try:
        parts = list(itertools.islice(iter(value), MOST_PARTS + 1))
    except Exception:  # noqa: BLE001 - the student's iterator may raise anything
        return None
    return parts if 0 < len(parts) <= MOST_PARTS else None


def _read_exact(fd: int, size: int, deadline: float | None) -> bytes:
    chunks = []
    remaining = size
    while remaining:
        if deadline is not None:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([fd], [], [], left)[0]:
                raise Deadline("no reply before the deadline")
        chunk = os.read(fd, min(remaining, 1 << 20))
        if not chunk:
            raise PipeClosed("the pipe closed")
        chunks.append(chunk)
        remaining -= len(chunk)
    return b"".join(chunks)


def _header(raw: bytes | bytearray) -> dict[str, Any]:
    try:
        header = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError) as error:
        raise WireError(f"header is not JSON: {error}") from None
    if not isinstance(header, dict) or not isinstance(header.get("arrays"), list):
        raise WireError("header is not an object with an 'arrays' list")
    return header


def _sizes(prefix: bytes | bytearray, max_payload: int) -> tuple[int, int]:
    header_size, payload_size = PREFIX.unpack_from(prefix)
    if header_size > MAX_HEADER_BYTES:
        raise WireError(f"header of {header_size} bytes is over the cap")
    if payload_size > max_payload:
        raise WireError(f"payload of {payload_size} bytes is over the cap")
    return header_size, payload_size


def read_frame(
    fd: int, deadline: float | None = None, max_payload: int = MAX_PAYLOAD_BYTES
) -> tuple[dict[str, Any], list[np.ndarray]]:
    """Read exactly one frame from ``fd`` (no byte past it); return its header and its validated arrays."""
    header_size, payload_size = _sizes(_read_exact(fd, PREFIX.size, deadline), max_payload)
    header = _header(_read_exact(fd, header_size, deadline))
    payload = _read_exact(fd, payload_size, deadline)
    return header, _split_arrays(header["arrays"], bytearray(payload))


def decode(frame: bytes) -> tuple[dict[str, Any], list[np.ndarray]]:
    """The header and arrays of one whole frame held in memory, as :func:`read_frame` gives them."""
    header_size, payload_size = _sizes(frame, MAX_PAYLOAD_BYTES)
    start = PREFIX.size + header_size
    if start + payload_size != len(frame):
        raise WireError("the frame's length does not match its prefix")
    header = _header(frame[PREFIX.size:start])
    return header, _split_arrays(header["arrays"], bytearray(frame[start:]))


class FrameReader:
    """The frames of one stream, read in large chunks: one read often brings several
    (a worker answering a batch), and a frame costs one read instead of three.

    Use it for every frame of that stream: bytes it has read ahead belong to the next frames.
    """

    CHUNK = 1 << 16

    def __init__(self, fd: int) -> None:
        self.fd = fd
        self._buffer = bytearray()

    def _fill(self, size: int, deadline: float | None) -> None:
        while len(self._buffer) < size:
            if deadline is not None:
                left = deadline - time.monotonic()
                if left <= 0 or not select.select([self.fd], [], [], left)[0]:
                    raise Deadline("no reply before the deadline")
            chunk = os.read(self.fd, max(self.CHUNK, min(size - len(self._buffer), 1 << 20)))
            if not chunk:
                raise PipeClosed("the pipe closed")
            self._buffer += chunk

    def read_frame(
        self, deadline: float | None = None, max_payload: int = MAX_PAYLOAD_BYTES
    ) -> tuple[dict[str, Any], list[np.ndarray]]:
        """The next frame: its header and its validated arrays (as :func:`read_frame`)."""
        self._fill(PREFIX.size, deadline)
        header_size, payload_size = _sizes(self._buffer, max_payload)
        start = PREFIX.size + header_size
        self._fill(start, deadline)
        header = _header(self._buffer[PREFIX.size:start])
        end = start + payload_size
        self._fill(end, deadline)
        payload = self._buffer[start:end]
        del self._buffer[:end]
        return header, _split_arrays(header["arrays"], payload)

    def holds(self, offset: int, frame: bytes, deadline: float | None = None) -> bool:
        """Whether the frame ``offset`` bytes ahead in the stream is byte for byte ``frame``;
        waits for no byte past ``frame``'s length, and consumes nothing."""
        self._fill(offset + PREFIX.size, deadline)
        header_size, payload_size = PREFIX.unpack_from(self._buffer, offset)
        if PREFIX.size + header_size + payload_size != len(frame):
            return False
        self._fill(offset + len(frame), deadline)
        return self._buffer.startswith(frame, offset)

    def skip_frame(self, deadline: float | None = None, max_payload: int = MAX_PAYLOAD_BYTES) -> None:
        """Consume the next frame unread (its sizes are still held to the caps)."""
        self._fill(PREFIX.size, deadline)
        header_size, payload_size = _sizes(self._buffer, max_payload)
        end = PREFIX.size + header_size + payload_size
        self._fill(end, deadline)
        del self._buffer[:end]

    def skip(self, size: int) -> None:
        """Consume ``size`` bytes that :meth:`holds` has checked."""
        del self._buffer[:size]


def _valid_side(side: Any) -> bool:
    return type(side) is int and 0 <= side <= MAX_PAYLOAD_BYTES


def _split_arrays(specs: list[Any], buffer: bytearray) -> list[np.ndarray]:
    # ``buffer`` is the frame's own writable copy of its payload; each array is a view of
    # its own slice of it.
    arrays = []
    offset = 0
    for spec in specs:
        if not isinstance(spec, dict):
            raise WireError("array spec is not an object")
        dtype, shape = spec.get("dtype"), spec.get("shape")
        kind = DTYPES.get(dtype) if isinstance(dtype, str) else None
        if kind is None:
            raise WireError(f"dtype {dtype!r} is not allowed")
        if not isinstance(shape, list) or len(shape) > MAX_NDIM or not all(map(_valid_side, shape)):
            raise WireError(f"shape {shape!r} is not valid")
        count = math.prod(shape)
        size = kind.itemsize * count
        if offset + size > len(buffer):
            raise WireError("payload is shorter than its arrays")
        array = np.frombuffer(buffer, dtype=kind, count=count, offset=offset).reshape(shape)
        arrays.append(array if kind.isnative else array.astype(kind.newbyteorder("="), copy=True))
        offset += size
    if offset != len(buffer):
        raise WireError("payload is longer than its arrays")
    return arrays


def unpack(value: Any, arrays: list[np.ndarray], depth: int = 0) -> Any:
    """Rebuild a value packed by :class:`ArrayPacker`, validating every reference.

    Raises :class:`WireError` for anything malformed and ``UnsupportedValue`` for a
    value the worker could not turn into an array.
    """
    if depth > MAX_NESTING:
        raise WireError("value is nested too deeply")
    if value is None or isinstance(value, (bool, int, float)):
        return value
    if isinstance(value, dict) and len(value) == 1 and "$array" in value:
        index = value["$array"]
        if type(index) is not int or not 0 <= index < len(arrays):
            raise WireError("array reference out of range")
        return arrays[index]
    if isinstance(value, dict) and "$tuple" in value and isinstance(value["$tuple"], list):
        return tuple(unpack(item, arrays, depth + 1) for item in value["$tuple"])
    if isinstance(value, dict) and isinstance(value.get("$unsupported"), str):
        return UnsupportedValue(value["$unsupported"][:200])
    raise WireError("value is not a packed value")


class UnsupportedValue:
    """Stands in for a returned value that is not a number, array or tuple."""

    def __init__(self, description: str) -> None:
        self.description = description

    def __repr__(self) -> str:
        return self.description


def write_all(fd: int, data: bytes, deadline: float | None = None) -> None:
    """Write every byte of ``data`` to ``fd``; with a deadline, raise :class:`Deadline` if the
    reader stops reading (writes of at most PIPE_BUF bytes to a writable pipe never block)."""
    view = memoryview(data)
    while view:
        if deadline is not None:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([], [fd], [], left)[1]:
                raise Deadline("the reader stopped reading")
            written = os.write(fd, view[: select.PIPE_BUF])
        else:
            written = os.write(fd, view)
        view = view[written:]
