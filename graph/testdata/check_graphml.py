#!/usr/bin/env python3
"""Check that networkx reads a GraphML export of noema.

usage: check_graphml.py FILE NODES EDGES [NODE_ID ATTR VALUE]...

Reads FILE with networkx.read_graphml, asserts the node and edge counts
(a MultiDiGraph counts parallel edges), that the graph is directed, and
that each NODE_ID has attribute ATTR equal to VALUE (a JSON-encoded list
or object compares as the string it is in the file). Exits non-zero with a
message on the first failure.
"""

import sys

import networkx as nx


def main(argv):
    if len(argv) < 4 or (len(argv) - 4) % 3:
        sys.exit(__doc__)
    path, nodes, edges = argv[1], int(argv[2]), int(argv[3])
    g = nx.read_graphml(path)
    if not g.is_directed():
        sys.exit("graph is not directed")
    if g.number_of_nodes() != nodes:
        sys.exit(f"{g.number_of_nodes()} nodes, want {nodes}")
    if g.number_of_edges() != edges:
        sys.exit(f"{g.number_of_edges()} edges, want {edges}")
    checks = argv[4:]
    for i in range(0, len(checks), 3):
        node, attr, want = checks[i : i + 3]
        if node not in g.nodes:
            sys.exit(f"no node {node!r}")
        got = g.nodes[node].get(attr)
        if got != want:
            sys.exit(f"node {node!r} {attr} = {got!r}, want {want!r}")
    for u, v, data in g.edges(data=True):
        if "kind" not in data or "type" not in data:
            sys.exit(f"edge {u!r} -> {v!r} lacks kind or type: {data!r}")
        if "weight" in data and not isinstance(data["weight"], float):
            sys.exit(f"edge {u!r} -> {v!r} weight is {type(data['weight']).__name__}, want float")
    print(f"ok: {g.number_of_nodes()} nodes, {g.number_of_edges()} edges, {type(g).__name__}")


if __name__ == "__main__":
    main(sys.argv)
