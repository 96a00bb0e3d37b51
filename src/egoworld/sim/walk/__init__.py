"""Synthetic panoramic walks: places, instance catalogue, the walker's route, and the episode synthesis (`synth`)."""
