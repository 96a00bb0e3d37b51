"""Small shared helpers: atomic files, JSON Lines, stable hashing and seeded randomness."""
