{
 "cells": [
  {
   "cell_type": "markdown",
   "id": "a1",
   "metadata": {},
   "source": [
    "# One attention head\n"
   ]
  },
  {
   "cell_type": "code",
   "execution_count": null,
   "id": "a2",
   "metadata": {},
   "outputs": [],
   "source": [
    "import numpy as np\n",
    "def softmax(x, axis=-1):\n",
    "    x = x - x.max(axis=axis, keepdims=True)\n",
    "    e = np.exp(x)\n",
    "    return e / e.sum(axis=axis, keepdims=True)\n",
    "\n",
    "\n",
    "def attention(Q, K, V, mask=None):\n",
    "    d_k = Q.shape[-1]\n",
    "    scores = (Q @ np.swapaxes(K, -1, -2)) / np.sqrt(d_k)\n",
    "    if mask is not None:\n",
    "        scores = np.where(mask, scores, -np.inf)\n",
    "    A = softmax(scores, axis=-1)\n",
    "    return A @ V, A\n",
    "\n",
    "\n",
    "def self_attention(X, Wq, Wk, Wv, mask=None):\n",
    "    return attention(X @ Wq, X @ Wk, X @ Wv, mask)\n",
    "\n",
    "\n",
    "def causal_mask(n):\n",
    "    return np.tril(np.ones((n, n), dtype=bool))\n"
   ]
  }
 ],
 "metadata": {
  "kernelspec": {
   "display_name": "Python 3",
   "language": "python",
   "name": "python3"
  },
  "language_info": {
   "name": "python"
  }
 },
 "nbformat": 4,
 "nbformat_minor": 5
}
