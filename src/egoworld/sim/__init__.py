"""Synthetic worlds with exact ground truth, rendered to real video files (OpenGL rasteriser, PyAV H.264).

Public API:

* Worlds — each writes one episode folder (`egoworld.world.folder` layout plus media and ground truth):
  `egoworld.sim.kitchen.synth_kitchen` (`KitchenConfig`; `load_kitchen_world` re-renders any time),
  `egoworld.sim.walk.synth_walk` (`WalkConfig`; `load_walk_world`, `view_motion`),
  `egoworld.sim.actions.synth_action_scene` (`ActionConfig`). File formats are in those modules'
  docstrings; `egoworld.sim.detections` documents ``detections.jsonl``.
* World sets: `egoworld.sim.worldset.synth_world_set` (resumable, parallel); CLI
  ``egoworld world synth kitchen|walk|actions`` (`egoworld.sim.cli`).
* Rendering: `egoworld.sim.render.Renderer` (RGB, depth as range in metres, instance ids from one OpenGL
  pass — moderngl, headless EGL — for any camera model of `egoworld.geometry.cameras`; `egoworld.sim.gl`
  holds the context and the shader), `egoworld.sim.primitives` (boxes, cylinders, ellipsoids),
  `egoworld.sim.looks`, `egoworld.sim.backgrounds`; `egoworld.media.writer.VideoWriter` (byte-stable MP4).
* Symbolic action simulation: `egoworld.sim.actions_state.SceneState` (→ `SceneGraph`),
  `egoworld.sim.actions_sim.ActionSimulator`.

Every random choice comes from ``egoworld.core.hashing.seeded_rng(seed, episode id, …)``: the same
seed gives byte-identical folders, in any order and in parallel.
"""
