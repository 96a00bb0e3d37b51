"""Folders and files: atomic JSON / JSONL files, the one folder loader, the benchmark folder, media confinement, hashing, the run lock and the response store."""
