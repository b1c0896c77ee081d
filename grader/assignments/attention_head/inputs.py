"""Fixed inputs the mistakes' probes and the pages' pictures share."""

from __future__ import annotations

import numpy as np

from grader.diagnoses import fixed_matrix as matrix  # noqa: F401 (for the probes and pictures)


# The lesson's worked example (section 3): Q = K, and V.
WORKED_QK = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
WORKED_V = np.array([[10.0, 0.0], [0.0, 10.0], [5.0, 5.0]])
