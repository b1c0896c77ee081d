"""What two members of a batch share, weighed by how rare it is in the batch.

Both signals (grader.similarity.code, .behaviour) are sets of keys per submission. A
key held by ``n`` of ``N`` submissions weighs ``log(1 + N / n)``, and nothing when more
than a given share of the batch holds it. Two submissions' score is the weight of the
keys they share over the smaller of their two totals: 1 when all that makes one of them
stand out is in the other too. Pairs are found through an index of keys, never by
comparing every pair.
"""

from __future__ import annotations

import functools
import math
from collections import defaultdict
from collections.abc import Hashable, Iterable
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Shared:
    """Each pair's score, and what each submission holds that weighs something (from
    which :meth:`keys` finds what a pair shares, for the few pairs that are listed)."""

    scores: dict[tuple[str, str], float]
    weighed: dict[str, frozenset[Hashable]]

    def keys(self, a: str, b: str) -> list[Hashable]:
        """The keys that weigh something which ``a`` and ``b`` both hold, in sorted order."""
        return sorted(self.weighed[a] & self.weighed[b])


def shared_rare(
    holdings: dict[str, Iterable[Hashable]], common_share: float, *, minimum: int = 1, floor: int = 1
) -> Shared:
    """The score of every pair (``a < b``) sharing at least ``minimum`` keys that weigh
    something (held by at most ``common_share`` of the batch, or by two). The smaller
    total is taken as at least ``floor`` keys of the greatest weight, so that a
    submission with almost nothing of its own does not match everyone with whom it shares
    that little."""
    students = sorted(holdings)
    count = len(students)
    held = {student: frozenset(holdings[student]) for student in students}
    index: dict[Hashable, list[int]] = defaultdict(list)
    for position, student in enumerate(students):
        for key in held[student]:
            index[key].append(position)
    weight = {
        key: math.log(1 + count / len(holders)) if len(holders) <= max(2, common_share * count) else 0.0
        for key, holders in index.items()
    }
    weighed = {student: frozenset(key for key in held[student] if weight[key] > 0) for student in students}
    totals = [sum(weight[key] for key in weighed[student]) for student in students]
    # Keys held by the same students (all of a copied file's own code, in each copy) are
    # taken together: each pair is met once per set of holders, not once per key.
    by_holders: dict[tuple[int, ...], list[float]] = defaultdict(list)
    for key, holders in index.items():
        if weight[key] > 0 and len(holders) > 1:
            by_holders[tuple(sorted(holders))].append(weight[key])
    least = floor * math.log(1 + count / 2)
    return Shared(_scores(by_holders, students, totals, minimum, least), weighed)


def _scores(
    by_holders: dict[tuple[int, ...], list[float]], students: list[str], totals: list[float], minimum: int, least: float
) -> dict[tuple[str, str], float]:
    """Every pair's score (see :func:`shared_rare`), over every pair of every set of
    holders. In NumPy: a batch of copies meets hundreds of thousands of pairs. Imported
    here, so that the command starts without it when --similarity is not asked for."""
    import numpy as np

    if not by_holders:
        return {}
    count = len(students)
    codes, weights, numbers = [], [], []
    for holders, keys in sorted(by_holders.items()):
        first, second = _pairs_of(len(holders))
        members = np.array(holders, dtype=np.int64)
        codes.append(members[first] * count + members[second])
        weights.append(np.full(len(first), math.fsum(sorted(keys))))
        numbers.append(np.full(len(first), len(keys), dtype=np.int64))
    unique, inverse = np.unique(np.concatenate(codes), return_inverse=True)
    shared_weight = np.bincount(inverse, weights=np.concatenate(weights))
    shared_number = np.bincount(inverse, weights=np.concatenate(numbers))
    first, second = unique // count, unique % count
    total = np.array(totals)
    smaller = np.maximum(np.minimum(total[first], total[second]), least)
    kept = (shared_number >= minimum) & (smaller > 0)
    ratios = np.minimum(1.0, shared_weight[kept] / smaller[kept])
    return {
        (students[a], students[b]): round(ratio, 3)
        for a, b, ratio in zip(first[kept].tolist(), second[kept].tolist(), ratios.tolist())
    }


@functools.cache
def _pairs_of(size: int) -> Any:
    """The (first, second) positions of every pair among ``size`` holders."""
    import numpy as np

    return np.triu_indices(size, 1)
