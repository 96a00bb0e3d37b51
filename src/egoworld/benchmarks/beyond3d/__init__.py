"""Beyond3D: out-of-sight spatiotemporal reasoning questions built from worlds (DESIGN.md §3).

The package's layout (evaluation at the top, the generator in ``build/``) is in its README.md.

Synthetic kitchens come from `egoworld.sim` (``egoworld world synth kitchen``); this package only reads
episodes (segment tests against fixture boxes use `egoworld.geometry.boxes.ray_box_entry`).
"""

BENCHMARK_NAME = "beyond3d"

VISIBILITY = "visibility"
LAST_VISIBLE = "last_visible_time"
LAST_PLACEMENT = "last_placement_time"
NEAREST_FIXTURE = "nearest_fixture"
OC_DIRECTION = "object_camera_direction"
OC_DISTANCE = "object_camera_distance"
OO_DIRECTION = "object_object_direction"
OO_DISTANCE = "object_object_distance"

TASK_ORDER = (
    VISIBILITY,
    LAST_VISIBLE,
    LAST_PLACEMENT,
    NEAREST_FIXTURE,
    OC_DIRECTION,
    OC_DISTANCE,
    OO_DIRECTION,
    OO_DISTANCE,
)
TASK_TITLES = {
    VISIBILITY: "Visibility Check",
    LAST_VISIBLE: "Last Visible Time",
    LAST_PLACEMENT: "Last Placement Time",
    NEAREST_FIXTURE: "Nearest Fixture",
    OC_DIRECTION: "Object–Camera Direction",
    OC_DISTANCE: "Object–Camera Distance",
    OO_DIRECTION: "Object–Object Direction",
    OO_DISTANCE: "Object–Object Distance",
}
TIME_TASKS = (LAST_VISIBLE, LAST_PLACEMENT)
SPATIAL_TASKS = (OC_DIRECTION, OC_DISTANCE, OO_DIRECTION, OO_DISTANCE)
#: trajectory step of each task (1-based, as the paper numbers them); 3D steps all depend on steps 1–4
STEP = {t: i + 1 for i, t in enumerate(TASK_ORDER[:4])} | {t: 5 for t in SPATIAL_TASKS}
