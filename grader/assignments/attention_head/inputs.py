"""The lesson's worked example, which the hang probe, the checks' probes and the pages share."""

from __future__ import annotations

import numpy as np


# The lesson's worked example (section 3): Q = K, and V.
WORKED_QK = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
WORKED_V = np.array([[10.0, 0.0], [0.0, 10.0], [5.0, 5.0]])
