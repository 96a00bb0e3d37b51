"""Synthetic worlds with exact ground truth, rendered to real video files (OpenGL rasteriser, PyAV H.264).

Public API:

* Worlds — each writes one episode folder (`egoworld.world.episode_folder` layout plus media and ground truth):
  `egoworld.sim.kitchen.synth.synth_kitchen` (`KitchenConfig`; `load_kitchen_world` re-renders any time),
  `egoworld.sim.walk.synth.synth_walk` (`WalkConfig`; `load_walk_world`, `view_motion`),
  `egoworld.sim.actions.synth.synth_action_scene` (`ActionConfig`). File formats are in those modules'
  docstrings; `egoworld.sim.simulated_detections` documents ``detections.jsonl``.
* World sets: `egoworld.sim.worldset.synth_world_set` (resumable, parallel); CLI
  ``egoworld world synth kitchen|walk|actions`` (`egoworld.sim.cli`).
* Rendering: `egoworld.sim.render.renderer.Renderer` (RGB, depth as range in metres, instance ids from one OpenGL
  pass — moderngl, headless EGL — for any camera model of `egoworld.geometry.cameras`; `egoworld.sim.render.gl`
  holds the context and the shader), `egoworld.sim.render.primitives` (boxes, cylinders, ellipsoids),
  `egoworld.sim.render.looks`, `egoworld.sim.render.backgrounds`; `egoworld.media.writer.VideoWriter` (byte-stable MP4).
* Symbolic action simulation: `egoworld.sim.actions.state.SceneState` (→ `SceneGraph`),
  `egoworld.sim.actions.grammar.ActionSimulator`.

Every random choice comes from ``egoworld.core.folders.hashing.seeded_rng(seed, episode id, …)``: the same
seed gives byte-identical folders, in any order and in parallel.
"""
