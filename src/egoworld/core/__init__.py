"""The bottom floor: contracts every stage shares (benchmark and run folders, samples, requests, the response
store, option letters and orders, confinement, the process pool, the failure the CLI prints) and small helpers
(atomic files, JSON Lines, stable hashing, seeded randomness, numbers, progress, secrets). It imports nothing
else of egoworld."""
