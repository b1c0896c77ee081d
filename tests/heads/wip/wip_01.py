"""Work in progress: the student has only copied the signatures.

Finished: none.
Unfinished: softmax, attention, self_attention and causal_mask all have a bare `pass` body
(each returns None).
"""
# unfinished: softmax, attention, self_attention, causal_mask
# diagnosis: none
import numpy as np


def softmax(x, axis=-1):
    pass


def attention(Q, K, V, mask=None):
    pass


def self_attention(X, Wq, Wk, Wv, mask=None):
    pass


def causal_mask(n):
    pass
