"""softmax's def line is missing its colon, so the file does not parse."""
# must-fail: *
# report-status: error

import numpy as np


def softmax(x, axis=-1)
    x = x - x.max(axis=axis, keepdims=True)
    e = np.exp(x)
    return e / e.sum(axis=axis, keepdims=True)
