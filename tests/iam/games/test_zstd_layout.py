"""iam.games.zstd_layout: walking real zstd files frame by frame and block by block ends exactly at their end."""

import os
import struct

import pytest
import zstandard

from iam.games.zstd_layout import FRAME_MAGIC, SKIPPABLE_MAGIC, block_header, frame_header, is_skippable


def _walk(data):
    """(data frames, skippable frames, block kinds) of ``data``, read with the layout functions only."""
    position, frames, skipped, kinds = 0, 0, 0, []
    while position < len(data):
        (magic,) = struct.unpack_from("<I", data, position)
        position += 4
        if is_skippable(magic):
            (size,) = struct.unpack_from("<I", data, position)
            position += 4 + size
            skipped += 1
            continue
        assert magic == FRAME_MAGIC
        header, checksum = frame_header(data[position])
        position += 1 + header
        while True:
            value = int.from_bytes(data[position : position + 3], "little")
            position += 3
            last, kind, size = block_header(value)
            assert kind != 3
            kinds.append(kind)
            position += size
            if last:
                break
        position += 4 if checksum else 0
        frames += 1
    assert position == len(data)
    return frames, skipped, kinds


@pytest.mark.parametrize("checksum", [False, True])
@pytest.mark.parametrize("content_size", [False, True])
@pytest.mark.parametrize("payload", [b"", b"e4 e5 Nf3 Nc6 " * 50, os.urandom(3000), b"a" * 100_000])
def test_one_frame_walks_to_the_end(checksum, content_size, payload):
    compressor = zstandard.ZstdCompressor(write_checksum=checksum, write_content_size=content_size)
    assert _walk(compressor.compress(payload))[:2] == (1, 0)


def test_a_large_input_has_several_blocks_and_random_bytes_are_stored_raw():
    data = zstandard.ZstdCompressor().compress(os.urandom(400_000))  # blocks hold at most 128 KiB
    frames, _, kinds = _walk(data)
    assert frames == 1 and len(kinds) >= 4 and set(kinds) == {0}


def test_a_run_of_one_byte_can_be_a_run_length_block():
    """300,000 zero bytes: after a first compressed block, whole blocks of zeros are run-length (one byte each)."""
    frames, _, kinds = _walk(zstandard.ZstdCompressor().compress(b"\x00" * 300_000))
    assert frames == 1 and 1 in kinds and set(kinds) <= {1, 2}


def test_concatenated_frames_and_skippable_frames():
    compressor = zstandard.ZstdCompressor(write_checksum=True)
    skippable = struct.pack("<II", SKIPPABLE_MAGIC + 7, 5) + b"hello"
    data = compressor.compress(b"one") + skippable + compressor.compress(b"two" * 1000) + skippable
    assert _walk(data)[:2] == (2, 2)


def test_skippable_magic_numbers_are_the_sixteen_after_the_first():
    assert [is_skippable(SKIPPABLE_MAGIC + i) for i in (0, 1, 15)] == [True] * 3
    assert not is_skippable(SKIPPABLE_MAGIC + 16) and not is_skippable(SKIPPABLE_MAGIC - 1)
    assert not is_skippable(FRAME_MAGIC)


@pytest.mark.parametrize(
    ("descriptor", "expected"),
    [
        (0x00, (1, False)),  # a window byte, nothing else
        (0x20, (1, False)),  # single segment: no window byte, a one-byte content size
        (0x24, (1, True)),
        (0x03, (1 + 4, False)),  # a four-byte dictionary id
        (0x01, (1 + 1, False)),
        (0x40, (1 + 2, False)),  # a two-byte content size
        (0xE6, (8 + 2, True)),  # single segment, eight-byte size, two-byte dictionary id, checksum
    ],
)
def test_frame_header_sizes_by_hand(descriptor, expected):
    assert frame_header(descriptor) == expected


def test_block_header_fields_by_hand():
    assert block_header(1 | 0 << 1 | 100 << 3) == (True, 0, 100)  # last raw block of 100 bytes
    assert block_header(0 | 1 << 1 | 5000 << 3) == (False, 1, 1)  # a run-length block: one byte follows
    assert block_header(2 << 1 | 77 << 3) == (False, 2, 77)
    assert block_header(3 << 1)[1] == 3  # reserved
