"""Which H.264 frames are references, read from the NAL unit headers of the demuxed packets.

A picture whose slices have ``nal_ref_idc == 0`` is never used to predict another picture (H.264 §7.4.1),
so a decoder may discard it unless it is itself wanted. Only the first bytes of each NAL unit are read (the
packet is not decoded). Packets in MP4/MKV carry length-prefixed NAL units (the prefix size comes from the
``avcC`` extradata); raw streams use start codes. Anything unexpected reads as "reference" (the safe side).
"""

from __future__ import annotations

_SLICE, _IDR = 1, 5
#: how far into an Annex B packet to look for the first slice (SEI and parameter sets come first)
_SCAN = 1 << 16


def length_size(extradata: bytes | None) -> int | None:
    """NAL length-prefix size of ``avcC`` extradata, or None for Annex B (start codes)."""
    if extradata and len(extradata) >= 5 and extradata[0] == 1:
        return (extradata[4] & 3) + 1
    return None


def is_nonref(data: memoryview | bytes, prefix: int | None) -> bool:
    """True when the packet's first slice is a non-reference picture (``nal_ref_idc == 0``)."""
    header = _first_slice_header(memoryview(data), prefix)
    return header is not None and (header >> 5) & 3 == 0 and header & 0x1F == _SLICE


def _first_slice_header(data: memoryview, prefix: int | None) -> int | None:
    n = len(data)
    if prefix is not None:
        pos = 0
        while pos + prefix < n:
            size = int.from_bytes(data[pos : pos + prefix], "big")
            if size <= 0 or pos + prefix + size > n:
                return None
            header = data[pos + prefix]
            if header & 0x1F in (_SLICE, _IDR):
                return header
            pos += prefix + size
        return None
    head = bytes(data[:_SCAN])
    pos = head.find(b"\x00\x00\x01")
    while 0 <= pos < len(head) - 3:
        header = head[pos + 3]
        if header & 0x1F in (_SLICE, _IDR):
            return header
        pos = head.find(b"\x00\x00\x01", pos + 3)
    return None
