"""VSI-Super-Wild: spatial supersensing questions on panoramic walks (VMR, VPO, VOO, VOC).

Modules: `importer` (the official question file), `durations` (video durations for it), `views` (panorama →
four view videos), `source` (a walk as the builder reads it), `vmr` / `vpo` / `voo` / `voc` / `streaming`
(the task rules), `balance` (selection and letter balance), `build` (`build_vsi_wild`), `analysis`
(report sections), `cli`, `demo`.
"""

BENCHMARK_NAME = "vsi_wild"
TASK_ORDER = ("VMR", "VPO", "VOO", "VOC")
VIEWS = ("front", "back", "left", "right")
