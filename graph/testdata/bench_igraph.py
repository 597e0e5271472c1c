#!/usr/bin/env python3
"""Time python3-igraph (and networkx) on a graph that noema wrote.

usage: bench_igraph.py EDGES.txt [--samples=K] [--no-networkx]

EDGES.txt: the node count on the first line, then one "a b weight" line per
undirected edge (node numbers from 0; a == b is a self-loop). It is the
concept graph TestAnalyzeSpeed (analyze_bench_test.go) analysed, so the
times compare like with like. Each igraph op is timed 3 times (networkx
ops once: they take seconds) and the medians printed as "LIB OP WALL CPU"
(seconds; CPU is this process's time, which a loaded machine does not
inflate), with OP named as the Go side names it:

  PageRank         igraph pagerank (PRPACK), networkx pagerank
  Louvain          igraph community_multilevel, networkx louvain_communities
  Betweenness      exact up to 5,000 nodes, else from the same number of
                   sampled sources as noema (--samples): igraph's sources=
                   (igraph 0.11 and later; left out by 0.10), networkx's
                   k= (networkx is left out above 5,000 nodes)
  AdamicAdarTop20  igraph similarity_inverse_log_weighted over all pairs
                   (a dense n×n matrix: up to 20,000 nodes only); networkx
                   is left out (minutes at this size)
  AdamicAdarHub    the same for the node of highest PageRank only
  PathsHubDepth3   all simple paths, cutoff 3, from that node to node n/2
                   (igraph and networkx enumerate every path; noema stops
                   after the shortest lengths that give 20); up to 20,000
                   nodes only
"""

import random
import statistics
import sys
import time


def timed(fn, reps=3):
    """Median wall and CPU seconds of reps runs."""
    ws, cs = [], []
    for _ in range(reps):
        c = time.process_time()
        t = time.perf_counter()
        fn()
        ws.append(time.perf_counter() - t)
        cs.append(time.process_time() - c)
    return statistics.median(ws), statistics.median(cs)


def main(argv):
    if len(argv) < 2:
        sys.exit(__doc__)
    use_nx = "--no-networkx" not in argv
    samples = 256
    for a in argv[2:]:
        if a.startswith("--samples="):
            samples = int(a.split("=", 1)[1])
    with open(argv[1]) as f:
        n = int(f.readline())
        edges, weights = [], []
        for line in f:
            a, b, w = line.split()
            edges.append((int(a), int(b)))
            weights.append(float(w))
    import igraph as ig

    g = ig.Graph(n=n, edges=edges, directed=False)
    g.es["weight"] = weights
    pr = g.pagerank(weights="weight", damping=0.85)
    hub = max(range(n), key=lambda i: (pr[i], -i))
    other = n // 2
    rng = random.Random(1)
    sources = None if n <= 5000 or samples == 0 else rng.sample(range(n), samples)

    def out(lib, op, secs):
        print(lib, op, f"{secs[0]:.6f}", f"{secs[1]:.6f}", flush=True)
        print(lib, op, f"{secs[0]:.3f} s", file=sys.stderr, flush=True)

    out("igraph", "PageRank", timed(lambda: g.pagerank(weights="weight", damping=0.85)))
    out("igraph", "Louvain", timed(lambda: g.community_multilevel(weights="weight")))
    if sources is None:
        out("igraph", "Betweenness", timed(lambda: g.betweenness(directed=False)))
    else:
        try:  # python-igraph 0.10.2 (Debian 12) has no sources=: no sampled estimate to compare
            out("igraph", "Betweenness", timed(lambda: g.betweenness(directed=False, sources=sources)))
        except TypeError:
            pass
    if n <= 20000:
        out("igraph", "AdamicAdarTop20", timed(lambda: g.similarity_inverse_log_weighted()))
    out("igraph", "AdamicAdarHub", timed(lambda: g.similarity_inverse_log_weighted(vertices=[hub])))
    if n <= 20000:  # beyond, enumerating every path of 3 edges from a hub takes igraph many minutes
        out("igraph", "PathsHubDepth3", timed(lambda: g.get_all_simple_paths(hub, to=other, cutoff=3)))

    if not use_nx:
        return
    try:
        import networkx as nx
    except ImportError:
        print("networkx not importable: its column stays empty", file=sys.stderr)
        return

    G = nx.Graph()
    G.add_nodes_from(range(n))
    G.add_weighted_edges_from((a, b, w) for (a, b), w in zip(edges, weights))

    def nx_pagerank():
        try:
            nx.pagerank(G, alpha=0.85)
        except ImportError:
            from networkx.algorithms.link_analysis.pagerank_alg import _pagerank_python

            _pagerank_python(G, alpha=0.85)

    out("networkx", "PageRank", timed(nx_pagerank, reps=1))
    out("networkx", "Louvain", timed(lambda: nx.community.louvain_communities(G, weight="weight", seed=1), reps=1))
    non = [(hub, v) for v in G if v != hub and not G.has_edge(hub, v)]
    out("networkx", "AdamicAdarHub", timed(lambda: list(nx.adamic_adar_index(G, non)), reps=1))
    out("networkx", "PathsHubDepth3", timed(lambda: list(nx.all_simple_paths(G, hub, other, cutoff=3)), reps=1))


if __name__ == "__main__":
    main(sys.argv)
