"""VSI-Super-Wild: spatial supersensing questions on panoramic walks (VMR, VPO, VOO, VOC)."""

BENCHMARK_NAME = "vsi_wild"
TASK_ORDER = ("VMR", "VPO", "VOO", "VOC")
VIEWS = ("front", "back", "left", "right")
