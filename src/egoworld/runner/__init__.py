"""The run loop: prompts, option permutations, request keys, the response store and resume."""
