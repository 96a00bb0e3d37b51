"""Video → world: camera trajectories (odometry, COLMAP, imported), instance tracks, places and appearances, written as episode folders (`perceive_walk`, `perceive_kitchen`, `perceive_set`)."""
