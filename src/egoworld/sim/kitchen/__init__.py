"""Synthetic kitchens: the procedural layout, fixtures and object catalogue, the wearer's story and its pace, the static world at any time, and the episode synthesis (`synth`)."""
