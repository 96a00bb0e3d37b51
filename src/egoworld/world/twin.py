"""An episode's scene mesh (a kitchen's digital twin) in the episode's world frame, for occlusion tests.

``media.extra["mesh"]`` names a glTF binary (``.glb``) inside the episode folder. glTF is y up; the
episode worlds are z up, so glTF ``(x, y, z)`` becomes world ``(x, −z, y)`` (`GLTF_TO_WORLD`, the
HD-EPIC digital-twin convention). Each glTF node is one part of the mesh; a part belongs to the
fixture whose ``meta["mesh_node"]`` (else ``label``) is the node's name.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
from numpy.typing import NDArray

from egoworld.core.folders.files import InputFileError
from egoworld.geometry.mesh import SceneMesh
from egoworld.world.episode import Episode, Fixture
from egoworld.world.gltf import read_glb
from egoworld.world.hd_epic.fixtures import GLTF_TO_WORLD

MESH_KEY = "mesh"


def glb_scene_mesh(path: str | Path) -> SceneMesh:
    """Every mesh node of a ``.glb`` as one part, carried through its node transform into the z-up world."""
    parts = []
    for node in read_glb(path):
        local = node.positions @ node.matrix[:3, :3].T + node.matrix[:3, 3]
        parts.append((node.name, local @ GLTF_TO_WORLD.T, node.triangles))
    return SceneMesh.from_parts(parts)


def fixture_of_parts(mesh: SceneMesh, fixtures: tuple[Fixture, ...]) -> NDArray[np.int64]:
    """``(P,)``: index of the fixture each mesh part models (-1 for parts without a fixture)."""
    index = {}
    for f, fx in enumerate(fixtures):
        index.setdefault(str(fx.meta.get("mesh_node", fx.label)), f)
    return np.array([index.get(name, -1) for name in mesh.parts], dtype=np.int64)


def episode_mesh(episode: Episode, root: str | Path | None) -> tuple[SceneMesh, NDArray[np.int64]] | None:
    """The episode's scene mesh and the fixture of each part, or None when ``media.extra`` names none."""
    rel = episode.media.extra.get(MESH_KEY)
    if not rel:
        return None
    if root is None:
        raise InputFileError(
            f"episode {episode.id}: media.extra.mesh is {rel!r} but the episode folder is unknown; "
            "load the episode from its folder (egoworld build beyond3d --world DIR)"
        )
    path = Path(root) / rel
    if not path.is_file():
        raise InputFileError(
            f"{path}: episode {episode.id} names this scene mesh (media.extra.mesh) but it is missing; "
            "re-import the episode or build with --depth boxes"
        )
    mesh = glb_scene_mesh(path)
    return mesh, fixture_of_parts(mesh, episode.fixtures)
