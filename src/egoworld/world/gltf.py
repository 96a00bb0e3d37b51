"""A minimal glTF 2.0 binary (``.glb``) reader: node names, world matrices, mesh vertex positions and
triangles.

Enough for digital twins exported from Blender (HD-EPIC ``P01_final.glb``); no materials, textures or
animation. Positions stay in glTF's own frame (y up); callers convert.
"""

from __future__ import annotations

import json
import struct
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

from egoworld.core.folders.files import InputFileError, read_input_bytes
from egoworld.geometry.transforms import make_transform, quat_to_matrix

_COMPONENT = {
    5120: np.int8,
    5121: np.uint8,
    5122: np.int16,
    5123: np.uint16,
    5125: np.uint32,
    5126: np.float32,
}
_WIDTH = {"SCALAR": 1, "VEC2": 2, "VEC3": 3, "VEC4": 4, "MAT4": 16}


@dataclass(frozen=True)
class GltfNode:
    """A node with a mesh: ``matrix`` maps the mesh's local positions into the glTF scene frame."""

    name: str
    matrix: NDArray[np.float64]  # (4, 4)
    translation: NDArray[np.float64]
    rotation: NDArray[np.float64]  # (3, 3)
    scale: NDArray[np.float64]
    positions: NDArray[np.float64]  # (N, 3) local vertex positions of all primitives
    triangles: NDArray[np.int64]  # (M, 3) vertex indices into ``positions`` (triangle primitives only)


def _trs(node: dict) -> tuple[NDArray, NDArray, NDArray]:
    if "matrix" in node:
        m = np.asarray(node["matrix"], dtype=np.float64).reshape(4, 4).T  # glTF stores column-major
        scale = np.linalg.norm(m[:3, :3], axis=0)
        return m[:3, 3].copy(), m[:3, :3] / scale, scale
    t = np.asarray(node.get("translation", [0, 0, 0]), dtype=np.float64)
    r = quat_to_matrix(node.get("rotation", [0, 0, 0, 1]))
    s = np.asarray(node.get("scale", [1, 1, 1]), dtype=np.float64)
    return t, r, s


def _accessor(doc: dict, binary: bytes, index: int, path: Path) -> NDArray[np.float64]:
    acc = doc["accessors"][index]
    view = doc["bufferViews"][acc["bufferView"]]
    dtype = np.dtype(_COMPONENT[acc["componentType"]])
    width = _WIDTH[acc["type"]]
    start = view.get("byteOffset", 0) + acc.get("byteOffset", 0)
    stride = view.get("byteStride", dtype.itemsize * width)
    count = acc["count"]
    if start + stride * (count - 1) + dtype.itemsize * width > len(binary):
        raise InputFileError(f"{path}: accessor {index} reaches past the end of the binary chunk")
    raw = np.frombuffer(
        binary, dtype=np.uint8, count=stride * (count - 1) + dtype.itemsize * width, offset=start
    )
    rows = np.lib.stride_tricks.as_strided(raw, shape=(count, dtype.itemsize * width), strides=(stride, 1))
    return rows.copy().view(dtype).reshape(count, width).astype(np.float64)


def read_glb(path: str | Path) -> list[GltfNode]:
    """Nodes that carry a mesh, in node order, with world matrices composed through the hierarchy."""
    path = Path(path)
    data = read_input_bytes(path, "binary glTF file (.glb)", empty_ok=False)
    if len(data) < 20 or data[:4] != b"glTF":
        raise InputFileError(f"{path}: not a binary glTF file (magic 'glTF' missing)")
    version, length = struct.unpack_from("<II", data, 4)
    if version != 2 or length != len(data):
        raise InputFileError(f"{path}: glTF version {version}, length {length} vs file size {len(data)}")
    chunks: dict[bytes, bytes] = {}
    offset = 12
    while offset + 8 <= len(data):
        size, kind = struct.unpack_from("<I4s", data, offset)
        chunks[kind] = data[offset + 8 : offset + 8 + size]
        offset += 8 + size
    if b"JSON" not in chunks:
        raise InputFileError(f"{path}: no JSON chunk")
    doc = json.loads(chunks[b"JSON"])
    binary = chunks.get(b"BIN\x00", b"")
    nodes = doc.get("nodes", [])
    parent: dict[int, int] = {c: i for i, n in enumerate(nodes) for c in n.get("children", [])}

    def world(i: int) -> NDArray[np.float64]:
        t, r, s = _trs(nodes[i])
        local = make_transform(r * s, t)
        return world(parent[i]) @ local if i in parent else local

    out = []
    for i, node in enumerate(nodes):
        if "mesh" not in node:
            continue
        prims = doc["meshes"][node["mesh"]]["primitives"]
        parts = [_accessor(doc, binary, p["attributes"]["POSITION"], path) for p in prims]
        tris, base = [], 0
        for p, part in zip(prims, parts, strict=True):
            if p.get("mode", 4) == 4:  # TRIANGLES; strips, fans, lines and points carry no faces here
                idx = (
                    _accessor(doc, binary, p["indices"], path).astype(np.int64).reshape(-1)
                    if "indices" in p
                    else np.arange(len(part), dtype=np.int64)
                )
                tris.append(idx[: len(idx) // 3 * 3].reshape(-1, 3) + base)
            base += len(part)
        triangles = np.concatenate(tris) if tris else np.zeros((0, 3), dtype=np.int64)
        t, r, s = _trs(node)
        out.append(
            GltfNode(node.get("name", f"node{i}"), world(i), t, r, s, np.concatenate(parts), triangles)
        )
    return out
