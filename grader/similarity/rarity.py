"""What two members of a batch share, weighed by how rare it is in the batch.

Both signals (grader.similarity.code, .behaviour) are sets of keys per submission. A
key held by ``n`` of ``N`` submissions weighs ``log(1 + N / n)``, and nothing when more
than a given share of the batch holds it. Two submissions' score is the weight of the
keys they share over the smaller of their two totals: 1 when all that makes one of them
stand out is in the other too. Pairs are found through an index of keys, never by
comparing every pair.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Hashable, Iterable


def shared_rare(
    holdings: dict[str, Iterable[Hashable]], common_share: float, *, minimum: int = 1, floor: int = 1
) -> dict[tuple[str, str], tuple[float, list[Hashable]]]:
    """``{(a, b): (score, shared keys)}`` for every pair (``a < b``) sharing at least
    ``minimum`` keys that weigh something (held by at most ``common_share`` of the batch,
    or by two). The smaller total is taken as at least ``floor`` keys of the greatest
    weight, so that a submission with almost nothing of its own does not match everyone
    with whom it shares that little."""
    count = len(holdings)
    index: dict[Hashable, list[str]] = defaultdict(list)
    for student, keys in holdings.items():
        for key in set(keys):
            index[key].append(student)
    weight = {
        key: math.log(1 + count / len(holders)) if len(holders) <= max(2, common_share * count) else 0.0
        for key, holders in index.items()
    }
    totals = {student: sum(weight[key] for key in set(keys)) for student, keys in holdings.items()}
    shared: dict[tuple[str, str], list[Hashable]] = defaultdict(list)
    for key, holders in index.items():
        if weight[key] > 0:
            holders = sorted(holders)
            for position, a in enumerate(holders):
                for b in holders[position + 1 :]:
                    shared[(a, b)].append(key)
    pairs = {}
    least = floor * math.log(1 + count / 2)
    for (a, b), keys in shared.items():
        smaller = max(min(totals[a], totals[b]), least)
        if len(keys) >= minimum and smaller > 0:
            pairs[(a, b)] = (round(min(1.0, sum(weight[key] for key in keys) / smaller), 3), keys)
    return pairs
