"""Interchange with other tools' formats: imports and exports at egoworld's edges."""
