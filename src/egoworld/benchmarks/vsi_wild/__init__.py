"""VSI-Super-Wild: spatial supersensing questions on panoramic walks (VMR, VPO, VOO, VOC).

The package's layout (evaluation at the top, the generator in ``build/``) is in its README.md.
"""

BENCHMARK_NAME = "vsi_wild"
TASK_ORDER = ("VMR", "VPO", "VOO", "VOC")
VIEWS = ("front", "back", "left", "right")
