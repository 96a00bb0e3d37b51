"""HD-EPIC digital twin (``<kitchen>_final.glb``) → fixtures as oriented boxes in the HD-EPIC world frame.

Each node is one fixture; its name without the kitchen prefix (``counter.001`` is fixture
``P01_counter.001``). The box is the node's mesh bounding box in mesh coordinates, carried through the
node transform, then from glTF (y up) to the HD-EPIC world (z up, the frame of the SLAM poses):
``(x, y, z)_world = (x, −z, y)_glTF``.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from egoworld.geometry.boxes import Box3D
from egoworld.world.episode import Fixture
from egoworld.world.gltf import GltfNode, read_glb

GLTF_TO_WORLD = np.array([[1.0, 0.0, 0.0], [0.0, 0.0, -1.0], [0.0, 1.0, 0.0]])
"""Rotation taking glTF (x, y, z) to HD-EPIC world (x, −z, y)."""

OPENABLE_TYPES = frozenset(
    {"cupboard", "drawer", "fridgefreezer", "fridge", "freezer", "microwave", "oven", "dishwasher"}
)


def fixture_type(name: str) -> str:
    """``counter.001`` → ``counter``; ``top_microwave.001`` → ``top_microwave``."""
    return name.split(".", 1)[0]


def node_box(node: GltfNode) -> Box3D:
    """The node's mesh bounding box as an oriented box in the HD-EPIC world frame."""
    lo, hi = node.positions.min(axis=0), node.positions.max(axis=0)
    a = node.matrix[:3, :3]
    scale = np.linalg.norm(a, axis=0)
    rot = a / scale
    if np.linalg.det(rot) < 0:  # a mirrored node: flip one axis (the box is symmetric)
        rot[:, 0] *= -1
    center = GLTF_TO_WORLD @ (node.matrix[:3, :3] @ ((lo + hi) / 2) + node.matrix[:3, 3])
    return Box3D(
        center=tuple(center.tolist()),
        size=tuple((scale * (hi - lo)).tolist()),
        rotation=tuple(map(tuple, (GLTF_TO_WORLD @ rot).tolist())),
    )


def load_digital_twin(path: str | Path, kitchen: str) -> list[Fixture]:
    """Fixtures of kitchen ``kitchen`` (e.g. ``P01``) from its digital-twin GLB, in node order."""
    fixtures = []
    for node in read_glb(path):
        kind = fixture_type(node.name)
        fixtures.append(
            Fixture(
                id=f"{kitchen}_{node.name}",
                label=node.name,
                type=kind,
                box=node_box(node),
                openable=kind in OPENABLE_TYPES,
                meta={"mesh_node": node.name},
            )
        )
    return fixtures
