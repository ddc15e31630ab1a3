"""The sites split into chunks that may be analysed apart (in other processes), each chunk whole
raising functions, so that the chains searched for a function serve all of its sites.

Chunks depend only on the sites and the cost given, never on the number of processes: the runner
hands them out as processes come free, the dearest first, so that none is left alone at the end.
"""

from __future__ import annotations

from typing import Callable, Sequence, TypeVar

T = TypeVar("T")
R = TypeVar("R")

# Runs a function over chunks, results in the chunks' order; in this process or not.
ChunkMap = Callable[[Callable[[Sequence[int]], list[R]], Sequence[Sequence[int]]], list[list[R]]]

CHUNKS = 64  # about: enough for a few dozen processes to finish together, few enough to cost nothing


def in_order(function: Callable[[T], R], chunks: Sequence[T]) -> list[R]:
    """The chunks run here, one after another."""
    return [function(chunk) for chunk in chunks]


def chunk_sites(nodes: Sequence[str], cost: Callable[[str], int], count: int = CHUNKS) -> list[tuple[int, ...]]:
    """Positions of the sites (`nodes`: each one's raising function) in about `count` chunks of
    like cost, dearest first; a function's cost is `cost(node)` plus its number of sites."""
    groups: dict[str, list[int]] = {}
    for position, node in enumerate(nodes):
        groups.setdefault(node, []).append(position)
    weighed = sorted(((cost(node) + len(positions), node, positions) for node, positions in groups.items()),
                     key=lambda item: (-item[0], item[1]))
    share = sum(weight for weight, _, _ in weighed) / count
    chunks: list[tuple[int, ...]] = []
    chunk: list[int] = []
    weight = 0
    for own, _, positions in weighed:
        chunk += positions
        weight += own
        if weight >= share:
            chunks.append(tuple(chunk))
            chunk, weight = [], 0
    if chunk:
        chunks.append(tuple(chunk))
    return chunks
