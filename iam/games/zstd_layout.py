"""The layout of a zstd file that the readers follow without decompressing: frames, their headers and blocks.

A file is a sequence of frames: a data frame starts with :data:`FRAME_MAGIC`, then a frame
header whose size its first byte (the descriptor) tells (:func:`frame_header`), then
blocks, each with a 3-byte header (:func:`block_header`), the last one flagged, then a
4-byte checksum when the descriptor asks for one. A skippable frame (magic
:data:`SKIPPABLE_MAGIC` to ``+15``) is its 4-byte size and that many bytes.
"""

from __future__ import annotations

__all__ = ["FRAME_MAGIC", "SKIPPABLE_MAGIC", "is_skippable", "frame_header", "block_header"]

FRAME_MAGIC = 0xFD2FB528
SKIPPABLE_MAGIC = 0x184D2A50
"""The first of the sixteen magic numbers of skippable frames (the low four bits are free)."""

_DICT_ID_BYTES = (0, 1, 2, 4)
_CONTENT_SIZE_BYTES = (0, 2, 4, 8)


def is_skippable(magic: int) -> bool:
    """Whether a frame's magic number marks a skippable frame."""
    return magic & 0xFFFFFFF0 == SKIPPABLE_MAGIC


def frame_header(descriptor: int) -> tuple[int, bool]:
    """Bytes of the frame header after its descriptor byte, and whether the frame ends with a checksum.

    >>> frame_header(0x24)  # single segment, a checksum, content size in one byte
    (1, True)
    """
    single_segment = bool(descriptor & 0x20)
    content_size = _CONTENT_SIZE_BYTES[descriptor >> 6] or (1 if single_segment else 0)
    return (0 if single_segment else 1) + _DICT_ID_BYTES[descriptor & 0x03] + content_size, bool(descriptor & 0x04)


def block_header(value: int) -> tuple[bool, int, int]:
    """``(last, kind, bytes that follow)`` of a 3-byte block header read as a little-endian number.

    ``kind`` 3 is reserved (a corrupt block); a run-length block (kind 1) is followed by one byte.
    """
    kind, size = (value >> 1) & 0x03, value >> 3
    return bool(value & 0x01), kind, 1 if kind == 1 else size
