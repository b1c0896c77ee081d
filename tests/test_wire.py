"""Frames between grader and worker: round trips, caps and malformed input."""

from __future__ import annotations

import json
import os
import struct

import numpy as np
import pytest

from grader.sandbox import wire


def roundtrip(data: bytes, **kwargs):
    read, write = os.pipe()
    try:
        os.write(write, data)
        os.close(write)
        return wire.read_frame(read, **kwargs)
    finally:
        os.close(read)


def raw_frame(header: dict, payload: bytes = b"") -> bytes:
    body = json.dumps(header).encode()
    return struct.pack(">II", len(body), len(payload)) + body + payload


def test_values_round_trip_as_exact_ndarrays():
    packer = wire.ArrayPacker()
    value = packer.pack((np.arange(6, dtype=np.float32).reshape(2, 3), [[True, False]], 3.5, None))
    header, arrays = roundtrip(wire.encode({"value": value}, packer.arrays))
    out, mask, scalar, nothing = wire.unpack(header["value"], arrays)
    assert type(out) is np.ndarray and out.dtype == np.float32 and out.tolist() == [[0, 1, 2], [3, 4, 5]]
    assert mask.dtype == np.bool_ and mask.tolist() == [[True, False]]
    assert scalar.shape == () and float(scalar) == 3.5
    assert nothing is None


def test_subclasses_and_big_endian_arrays_arrive_plain():
    class Sneaky(np.ndarray):
        def __eq__(self, other):
            return True

    packer = wire.ArrayPacker()
    value = packer.pack(np.arange(3, dtype=">f8").view(Sneaky))
    header, arrays = roundtrip(wire.encode({"value": value}, packer.arrays))
    result = wire.unpack(header["value"], arrays)
    assert type(result) is np.ndarray and result.tolist() == [0.0, 1.0, 2.0]


@pytest.mark.parametrize(
    "value, described",
    [("text", "a str"), (np.array([1j]), "an array of dtype complex128"), (object(), "a object")],
)
def test_unsupported_values_are_named(value, described):
    packer = wire.ArrayPacker()
    header, arrays = roundtrip(wire.encode({"value": packer.pack(value)}, packer.arrays))
    assert repr(wire.unpack(header["value"], arrays)) == described


def test_oversized_payload_is_refused_before_reading():
    with pytest.raises(wire.WireError, match="over the cap"):
        roundtrip(struct.pack(">II", 10, 10**9))


@pytest.mark.parametrize(
    "header, payload, message",
    [
        ({"arrays": [{"dtype": "|O", "shape": [1]}]}, b"x" * 8, "not allowed"),
        ({"arrays": [{"dtype": "<f8", "shape": [2]}]}, b"x" * 8, "shorter"),
        ({"arrays": [{"dtype": "<f8", "shape": [1]}]}, b"x" * 16, "longer"),
        ({"arrays": [{"dtype": "<f8", "shape": [-1]}]}, b"", "shape"),
        ({"arrays": "nope"}, b"", "arrays"),
    ],
)
def test_malformed_frames_are_protocol_errors(header, payload, message):
    with pytest.raises(wire.WireError, match=message):
        roundtrip(raw_frame(header, payload))


def test_references_are_checked():
    with pytest.raises(wire.WireError, match="out of range"):
        wire.unpack({"$array": 3}, [])
    with pytest.raises(wire.WireError, match="not a packed value"):
        wire.unpack({"__reduce__": "os.system"}, [])


def test_a_closed_pipe_and_a_deadline_are_told_apart():
    with pytest.raises(wire.PipeClosed):
        roundtrip(b"")
    read, write = os.pipe()
    try:
        with pytest.raises(wire.Deadline):
            wire.read_frame(read, deadline=0.0)
    finally:
        os.close(read)
        os.close(write)


def test_a_frame_reader_splits_frames_that_arrive_together_and_waits_for_the_rest():
    frames = [wire.encode({"n": n}, [np.full((n, 2), n, dtype=np.int64)]) for n in range(1, 6)]
    stream = b"".join(frames)
    read, write = os.pipe()
    try:
        os.write(write, stream[: len(stream) - 3])  # the last frame not yet whole
        reader = wire.FrameReader(read)
        for n in range(1, 5):
            header, (array,) = reader.read_frame(deadline=None)
            assert header["n"] == n and array.tolist() == [[n, n]] * n
        with pytest.raises(wire.Deadline):
            reader.read_frame(deadline=0.0)
        os.write(write, stream[-3:])
        header, (array,) = reader.read_frame(deadline=None)
        assert header["n"] == 5 and array.shape == (5, 2)
        os.close(write)
        write = None
        with pytest.raises(wire.PipeClosed):
            reader.read_frame()
    finally:
        os.close(read)
        if write is not None:
            os.close(write)


def test_a_frame_reader_keeps_the_caps():
    read, write = os.pipe()
    try:
        os.write(write, struct.pack(">II", wire.MAX_HEADER_BYTES + 1, 0))
        with pytest.raises(wire.WireError, match="over the cap"):
            wire.FrameReader(read).read_frame()
    finally:
        os.close(read)
        os.close(write)


def test_a_frame_reader_tells_whether_frames_ahead_are_the_expected_bytes_without_taking_them():
    first, second = wire.answer_frame(np.eye(2)), wire.answer_frame((np.ones(3), np.zeros((1, 2))))
    differs_in_a_byte = wire.answer_frame(np.eye(2) * 2)  # same length as first
    read, write = os.pipe()
    try:
        os.write(write, first + second[:5])
        reader = wire.FrameReader(read)
        assert reader.holds(0, first, deadline=None)
        assert not reader.holds(0, differs_in_a_byte, deadline=None)
        assert not reader.holds(0, second, deadline=None)  # another length: told from the prefix
        with pytest.raises(wire.Deadline):
            reader.holds(len(first), second, deadline=0.0)  # not all there yet
        os.write(write, second[5:])
        assert reader.holds(len(first), second, deadline=None)
        header, (array,) = reader.read_frame()  # nothing was taken
        assert header["status"] == "ok" and array.tolist() == np.eye(2).tolist()
        reader.skip(len(second))
        with pytest.raises(wire.Deadline):
            reader.read_frame(deadline=0.0)
    finally:
        os.close(read)
        os.close(write)


def test_a_frame_in_memory_decodes_as_one_read_from_a_pipe():
    frame = wire.answer_frame((np.arange(6.0).reshape(2, 3), np.array([True, False])), [np.ones(2)])
    header, arrays = wire.decode(frame)
    assert wire.unpack(header["value"], arrays)[1].tolist() == [True, False]
    assert wire.unpack(header["args_after"][0], arrays).tolist() == [1.0, 1.0]
    with pytest.raises(wire.WireError, match="length"):
        wire.decode(frame + b"\0")


def test_a_frame_reader_skips_a_frame_unread_but_within_the_caps():
    read, write = os.pipe()
    try:
        os.write(write, wire.answer_frame(np.eye(3)) + wire.answer_frame(np.ones(2)))
        reader = wire.FrameReader(read)
        reader.skip_frame()
        header, arrays = reader.read_frame()
        assert wire.unpack(header["value"], arrays).tolist() == [1.0, 1.0]
        os.write(write, struct.pack(">II", wire.MAX_HEADER_BYTES + 1, 0))
        with pytest.raises(wire.WireError, match="over the cap"):
            reader.skip_frame()
    finally:
        os.close(read)
        os.close(write)


def test_nested_lists_that_make_no_one_array_arrive_as_their_parts():
    """``[out.tolist(), A.tolist()]`` of other shapes unpacks as ``out, A = ...`` does; nested
    lists of one shape stay one array, and a ragged list of numbers is still named."""
    packer = wire.ArrayPacker()
    value = packer.pack([[[1.0, 2.0, 3.0]], [[0.5, 0.5]]])
    square = packer.pack([[1.0, 2.0], [3.0, 4.0]])
    ragged = packer.pack([[1.0, 2.0], 3.0])
    header, arrays = roundtrip(wire.encode({"value": value, "square": square, "ragged": ragged}, packer.arrays))
    out, A = wire.unpack(header["value"], arrays)
    assert out.tolist() == [[1.0, 2.0, 3.0]] and A.tolist() == [[0.5, 0.5]]
    assert wire.unpack(header["square"], arrays).shape == (2, 2)
    assert repr(wire.unpack(header["ragged"], arrays)).startswith("a list")


def test_what_python_unpacks_into_a_pair_arrives_as_its_parts():
    """A generator, dict.values() and a 1-D array of objects hold (out, A) as `out, A = ...`
    reads them; a dict (its keys), a string and an endless generator do not."""

    def pair():
        yield np.ones((2, 3))
        yield np.full((2, 2), 0.5)

    def endless():
        while True:
            yield 1.0

    objects = np.empty(2, dtype=object)
    objects[0], objects[1] = np.ones((2, 3)), np.full((2, 2), 0.5)
    packer = wire.ArrayPacker()
    values = {"generator": pair(), "view": {"out": np.ones((2, 3)), "A": np.full((2, 2), 0.5)}.values(), "objects": objects}
    refused = {"dict": {"out": 1.0}, "endless": endless()}
    packed = {name: packer.pack(value) for name, value in {**values, **refused}.items()}
    header, arrays = roundtrip(wire.encode(packed, packer.arrays))
    for name in values:
        out, A = wire.unpack(header[name], arrays)
        assert out.shape == (2, 3) and A.tolist() == [[0.5, 0.5], [0.5, 0.5]], name
    for name in refused:
        assert repr(wire.unpack(header[name], arrays)).startswith("a "), name
