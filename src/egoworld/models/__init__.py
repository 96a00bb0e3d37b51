"""Model backends behind the one small async interface of `egoworld.core.model` (requests in, generations out)."""
