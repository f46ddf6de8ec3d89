"""Diversity of a delivered set: clusters = connected components of the "same" graph.

Nodes are the delivered hypotheses of one run; an edge joins two hypotheses the rule
judged the same (unscored pairs add no edge). A set of k mutually different hypotheses
has k clusters; one where everything is "same" has 1.
"""

from __future__ import annotations

from typing import Iterable

import numpy as np


def count_clusters(n_nodes: int, same_edges: Iterable[tuple[int, int]]) -> int:
    """Number of connected components of the graph on ``n_nodes`` nodes with ``same_edges``."""
    from scipy.sparse import coo_matrix  # heavy: scipy
    from scipy.sparse.csgraph import connected_components  # heavy: scipy

    if n_nodes == 0:
        return 0
    edges = list(same_edges)
    rows = np.array([i for i, _ in edges], dtype=int)
    cols = np.array([j for _, j in edges], dtype=int)
    graph = coo_matrix((np.ones(len(edges)), (rows, cols)), shape=(n_nodes, n_nodes))
    count, _ = connected_components(graph, directed=False)
    return int(count)
