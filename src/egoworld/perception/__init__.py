"""The perception stage: world ← video. Camera trajectories, objects over time and places perceived from a
user's own recordings, each field with its provenance, written as episode folders the builders read."""
