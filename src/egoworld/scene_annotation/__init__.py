"""EXPLORE-Bench's final-scene annotation over one's own images (`egoworld scene`): the detector + VLM pipeline, its tag rules and prompts, and agreement with an exact scene graph."""
