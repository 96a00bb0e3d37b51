"""Synthetic EXPLORE-style action scenes: the kitchen corner, the object vocabulary, the symbolic action grammar, scene state, replay, and the episode synthesis (`synth`)."""
