"""Op-table rows for the third batch of miscellaneous names: sample_distorted_bounding_box
(scopeflow/ops/image/distorted_box_ops.py), ... Fixed values are TF 2.21's for the same
seeds and inputs; the live comparisons are in tests/unit/ops/<family>/.
"""

from __future__ import annotations

import numpy as np

from .op_table import OpCase

f32 = np.float32

ROWS = [
    # TF 2.21: seed=3 on a 10x10 image gives this crop (first run of a new session).
    OpCase("SampleDistortedBoundingBoxV2",
           lambda tf: list(tf.image.sample_distorted_bounding_box(
               [10, 10, 3], [[[0.1, 0.1, 0.5, 0.5]]], seed=3)),
           lambda: [np.int32([1, 3, 0]), np.int32([3, 3, -1]), f32([[[0.1, 0.3, 0.4, 0.6]]])],
           id="SampleDistortedBoundingBoxV2"),
]
