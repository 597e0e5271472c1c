#!/usr/bin/env python3
"""Check noema's analyze_graph against networkx.

usage: check_analyze.py EXPORT.json ANSWERS.json

EXPORT.json is `noema graph export --format json`. The graphs are rebuilt
from it alone, as docs/graph.md defines them:

  concepts: every concept node; for each note, its distinct concepts in
            the order of their mentions' "position", +1 between every pair
            at most WINDOW places apart, fewer in a note of over PAIRS/WINDOW
            concepts (graph.WindowOf; graph.CooccurrenceWindow and
            graph.CooccurrencePairs, given in
            ANSWERS.json); for each non-dangling relation
            between two concepts, + its weight (1 when it has none), a
            relation from a concept to itself being a self-loop; pairs whose
            sum is not positive have no edge.
  full:     every node; every non-dangling edge (mentions weigh their count,
            relations their weight or 1) added undirected, parallel edges
            summed.

ANSWERS.json holds what the Go side computed on each graph (see
analyze_nx_test.go). Each answer is compared with networkx; the script
prints a summary and exits non-zero on the first difference.
"""

import json
import math
import sys
from collections import defaultdict

import networkx as nx


def concept_graph(export, window, pairs):
    g = nx.Graph()
    concepts = [n["id"] for n in export["nodes"] if n["kind"] == "concept"]
    g.add_nodes_from(concepts)
    cs = set(concepts)
    weight = defaultdict(float)
    by_note = defaultdict(list)
    for e in export["edges"]:
        if e["kind"] == "mentions" and e["target"] in cs:
            by_note[e["source"]].append((e.get("position", 0), e["target"]))
        elif e["kind"] == "relation" and not e.get("dangling"):
            if e["source"] in cs and e["target"] in cs:
                weight[tuple(sorted((e["source"], e["target"])))] += e.get("weight", 1.0)
    for linked in by_note.values():
        linked = [c for _, c in sorted(linked)]
        w = min(window, max(1, pairs // len(linked)))  # graph.WindowOf
        for i, a in enumerate(linked):
            for b in linked[i + 1 : i + 1 + w]:
                weight[tuple(sorted((a, b)))] += 1.0
    for (a, b), w in sorted(weight.items()):
        if w > 0:
            g.add_edge(a, b, weight=w)
    return g


def full_graph(export):
    g = nx.Graph()
    g.add_nodes_from(n["id"] for n in export["nodes"])
    weight = defaultdict(float)
    for e in export["edges"]:
        if e.get("dangling"):
            continue
        weight[tuple(sorted((e["source"], e["target"])))] += e.get("weight", 1.0)
    for (a, b), w in sorted(weight.items()):
        if w > 0:
            g.add_edge(a, b, weight=w)
    return g


def pagerank(g, personalization=None):
    # Tight tolerance: the Go side iterates to an L1 change below 1e-10.
    try:
        return nx.pagerank(g, alpha=0.85, personalization=personalization, tol=1e-12, max_iter=10000)
    except ImportError:  # networkx's default pagerank needs scipy
        from networkx.algorithms.link_analysis.pagerank_alg import _pagerank_python

        return _pagerank_python(g, alpha=0.85, personalization=personalization, tol=1e-12, max_iter=10000)


def fail(msg):
    print("FAIL:", msg)
    sys.exit(1)


def close(name, want, got, tol):
    if set(want) != set(got):
        fail(f"{name}: node sets differ: {sorted(set(want) ^ set(got))[:5]}")
    worst = max((abs(want[k] - got[k]) for k in want), default=0.0)
    if worst > tol:
        k = max(want, key=lambda k: abs(want[k] - got[k]))
        fail(f"{name}: {k} networkx {want[k]!r} noema {got[k]!r} (diff {worst:g} > {tol:g})")
    return worst


def check(g, a):
    name = a["graph"]
    print(f"{name} graph: {g.number_of_nodes()} nodes, {g.number_of_edges()} edges, networkx {nx.__version__}")

    d = close(f"{name} pagerank", pagerank(g), a["pagerank"], 1e-6)
    print(f"  pagerank: max |diff| {d:.2e}")
    seeds = {s: 1 for s in a["seeds"]}
    d = close(f"{name} personalised pagerank", pagerank(g, seeds), a["personal"], 1e-6)
    print(f"  personalised pagerank ({len(seeds)} seeds): max |diff| {d:.2e}")

    d = close(f"{name} betweenness", nx.betweenness_centrality(g), a["betweenness"], 1e-9)
    print(f"  betweenness (exact): max |diff| {d:.2e}")

    # Adamic–Adar: every pair's score equal; the same top list.
    got = a["adamic_adar"]
    nx_scores = {}
    for u, v, s in nx.adamic_adar_index(g):
        if s > 0:
            nx_scores[frozenset((u, v))] = s
    ranked = sorted(nx_scores.values(), reverse=True)
    for u, v, s in got:
        want = nx_scores.get(frozenset((u, v)))
        if want is None or abs(want - s) > 1e-9:
            fail(f"{name} adamic-adar {u} {v}: networkx {want} noema {s}")
    if [round(s, 9) for _, _, s in got] != [round(s, 9) for s in ranked[: len(got)]]:
        fail(f"{name} adamic-adar: the top {len(got)} scores differ from networkx's")
    one = a["adamic_adar_one"]
    u = one["node"]
    pairs = [(u, v) for v in g if v != u and not g.has_edge(u, v)]
    want = {v: s for _, v, s in nx.adamic_adar_index(g, pairs) if s > 0}
    d = close(f"{name} adamic-adar of {u}", want, one["links"], 1e-9)
    print(f"  adamic-adar: top {len(got)} of {len(nx_scores)} pairs equal; {len(want)} links of one node, max |diff| {d:.2e}")

    n_paths = 0
    for p in a["paths"]:
        want = {tuple(x) for x in nx.all_simple_paths(g, p["from"], p["to"], cutoff=p["cutoff"])}
        got = [tuple(x) for x in p["paths"]]
        if len(got) != len(set(got)) or set(got) != want:
            fail(f"{name} paths {p['from']} -> {p['to']} cutoff {p['cutoff']}: networkx {len(want)}, noema {len(got)}: "
                 f"{sorted(want ^ set(got))[:3]}")
        lengths = [len(x) for x in got]
        if lengths != sorted(lengths):
            fail(f"{name} paths {p['from']} -> {p['to']}: not shortest first")
        n_paths += len(got)
    print(f"  all simple paths: {len(a['paths'])} queries, {n_paths} paths, same sets")

    for lv in a["louvain"]:
        seed = lv["seed"]
        parts = [set(c) for c in lv["partition"]]
        ours = nx.community.modularity(g, parts, weight="weight", resolution=1)
        if abs(ours - lv["modularity"]) > 1e-9:
            fail(f"{name} louvain seed {seed}: noema says modularity {lv['modularity']}, networkx computes {ours}")
        theirs = nx.community.louvain_communities(g, weight="weight", resolution=1, seed=seed)
        again = nx.community.louvain_communities(g, weight="weight", resolution=1, seed=seed)
        if sorted(map(sorted, theirs)) != sorted(map(sorted, again)):
            fail(f"{name} networkx louvain seed {seed} is not deterministic")
        q = nx.community.modularity(g, theirs, weight="weight", resolution=1)
        if ours < q - 0.01:
            fail(f"{name} louvain seed {seed}: modularity {ours:.4f} below networkx's {q:.4f} by more than 0.01")
        print(f"  louvain seed {seed}: noema {ours:.4f} ({len(parts)} communities), networkx {q:.4f} ({len(theirs)})")


def main(argv):
    if len(argv) != 3:
        sys.exit(__doc__)
    with open(argv[1]) as f:
        export = json.load(f)
    with open(argv[2]) as f:
        answers = json.load(f)
    graphs = {"concepts": concept_graph(export, answers[0]["window"], answers[0]["pairs"]), "full": full_graph(export)}
    for a in answers:
        check(graphs[a["graph"]], a)
    print("all analyses match networkx")


if __name__ == "__main__":
    main(sys.argv)
