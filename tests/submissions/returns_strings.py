"""Returns values that are not arrays."""


def softmax(x, axis=-1):
    return "probabilities"


def causal_mask(n):
    return None
