"""Scoring: answer extraction and per-sample scores."""
