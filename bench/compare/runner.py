#!/usr/bin/python3
"""The Python side of `npm run bench:compare`: one measurement per process.

    /usr/bin/python3 runner.py igraph|graph-tool|networkx FILE ROOT SCORES_OUT
        load FILE (a numeric edge list, self-links dropped), PageRank (damping
        0.85, L1 tolerance 1e-10 or the library's equivalent; scores written
        to SCORES_OUT by page id as little-endian float64), strongly
        connected components, BFS from ROOT; one JSON line per stage, flushed
        at once (the records of bench/compare/protocol.ts), then the peak
        resident set.
    /usr/bin/python3 runner.py versions
        the versions of python, numpy, scipy, igraph, graph-tool, networkx
        (null for a module that does not import), as JSON.

Debian's packages (python3-igraph, python3-graph-tool, python3-networkx,
python3-scipy) live in /usr/lib/python3/dist-packages, hence /usr/bin/python3.
"""
import json
import os
import resource
import sys
import time

TOLERANCE = 1e-10
DAMPING = 0.85


def peak_rss():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024  # kB on Linux


def emit(record):
    sys.stdout.write(json.dumps(record) + "\n")
    sys.stdout.flush()


def stage(name, fn, details):
    cpu = time.process_time()
    started = time.perf_counter()
    value = fn()
    seconds = time.perf_counter() - started
    record = {"kind": "stage", "stage": name, "seconds": seconds, "cpu": time.process_time() - cpu, "peakRss": peak_rss()}
    record.update(details(value))
    emit(record)
    return value


def done(baseline):
    emit({"kind": "done", "peakRss": peak_rss(), "baselineRss": baseline})


def write_scores(path, scores):
    import numpy as np

    if path != "-":
        np.ascontiguousarray(scores, dtype="<f8").tofile(path)


def parse_edges(path):
    """A numeric edge list as an (m, 2) int64 array without self-links, and the page count.

    numpy parses the text in C (the fastest route into graph-tool and NetworkX);
    only the first two columns of plain `from to` lines are expected."""
    import numpy as np

    with open(path, "rb") as f:
        text = f.read()
    values = np.fromstring(text, dtype=np.int64, sep=" ")
    del text
    if values.size % 2:
        raise ValueError(f"{path}: an odd number of fields; expected two per line")
    edges = values.reshape(-1, 2)
    nodes = int(edges.max()) + 1 if edges.size else 0
    edges = edges[edges[:, 0] != edges[:, 1]]
    return edges, nodes


def run_igraph(path, root, scores_out):
    import numpy as np
    import igraph as ig

    baseline = peak_rss()

    def load():
        # igraph's own C reader; simplify drops the self-links and keeps parallel links (there are none).
        g = ig.Graph.Read_Edgelist(path, directed=True)
        g.simplify(multiple=False, loops=True)
        return g

    g = stage("load", load, lambda g: {"nodes": g.vcount(), "edges": g.ecount()})
    # PRPACK (igraph's default): its tolerance is fixed at 1e-10 inside igraph and cannot be set.
    scores = stage(
        "pagerank",
        lambda: g.pagerank(directed=True, damping=DAMPING, implementation="prpack"),
        lambda _: {"iterations": None},
    )
    write_scores(scores_out, np.array(scores))
    stage(
        "scc",
        lambda: g.connected_components(mode="strong"),
        lambda c: {"count": len(c), "largest": max(c.sizes()) if len(c) else 0},
    )
    stage("bfs", lambda: g.bfs(root, mode="out")[0], lambda order: {"reached": len(order)})
    done(baseline)


def run_graph_tool(path, root, scores_out):
    import numpy as np
    import graph_tool as gt
    from graph_tool import centrality, topology

    threads = int(os.environ.get("WGA_BENCH_GT_THREADS", os.cpu_count() or 1))
    gt.openmp_set_num_threads(threads)
    baseline = peak_rss()

    def load():
        edges, nodes = parse_edges(path)
        g = gt.Graph(directed=True)
        g.add_vertex(nodes)
        g.add_edge_list(edges)
        return g

    g = stage("load", load, lambda g: {"nodes": g.num_vertices(), "edges": g.num_edges()})
    # epsilon is the L1 change between iterates (the sum of |r_new - r_old|); dangling mass goes to pers (uniform).
    rank, iterations = stage(
        "pagerank",
        lambda: centrality.pagerank(g, damping=DAMPING, epsilon=TOLERANCE, ret_iter=True),
        lambda r: {"iterations": int(r[1])},
    )
    write_scores(scores_out, rank.a)
    stage(
        "scc",
        lambda: topology.label_components(g, directed=True)[1],
        lambda hist: {"count": int(len(hist)), "largest": int(hist.max()) if len(hist) else 0},
    )

    def bfs():
        distance = topology.shortest_distance(g, source=g.vertex(root)).a
        return int((distance < np.iinfo(distance.dtype).max).sum())

    stage("bfs", bfs, lambda reached: {"reached": reached})
    done(baseline)


def run_networkx(path, root, scores_out):
    import numpy as np
    import networkx as nx

    baseline = peak_rss()

    def load():
        # Faster than nx.read_edgelist (about 25% on cnr-2000): numpy parses, add_edges_from builds.
        edges, nodes = parse_edges(path)
        g = nx.DiGraph()
        g.add_nodes_from(range(nodes))
        g.add_edges_from(zip(edges[:, 0].tolist(), edges[:, 1].tolist()))
        return g

    g = stage("load", load, lambda g: {"nodes": g.number_of_nodes(), "edges": g.number_of_edges()})
    n = g.number_of_nodes()
    # NetworkX (scipy power iteration) stops when the L1 change is below n * tol.
    scores = stage(
        "pagerank",
        lambda: nx.pagerank(g, alpha=DAMPING, tol=TOLERANCE / n, max_iter=1000),
        lambda _: {"iterations": None},
    )
    vector = np.zeros(n)
    for node, value in scores.items():
        vector[node] = value
    del scores
    write_scores(scores_out, vector)

    def scc():
        count = largest = 0
        for component in nx.strongly_connected_components(g):
            count += 1
            largest = max(largest, len(component))
        return count, largest

    stage("scc", scc, lambda r: {"count": r[0], "largest": r[1]})
    stage("bfs", lambda: nx.single_source_shortest_path_length(g, root), lambda levels: {"reached": len(levels)})
    done(baseline)


def versions():
    found = {"python": sys.version.split()[0]}
    for key, module in [("numpy", "numpy"), ("scipy", "scipy"), ("igraph", "igraph"), ("networkx", "networkx"), ("graph-tool", "graph_tool")]:
        try:
            imported = __import__(module)
            version = getattr(imported, "__version__", "unknown")
            found[key] = version.split()[0] if isinstance(version, str) else str(version)
        except Exception:
            found[key] = None
    if found.get("graph-tool"):
        import graph_tool as gt

        found["graph-tool-openmp"] = bool(gt.openmp_enabled())
    emit(found)


def main():
    mode = sys.argv[1] if len(sys.argv) > 1 else ""
    if mode == "versions":
        versions()
        return
    runners = {"igraph": run_igraph, "graph-tool": run_graph_tool, "networkx": run_networkx}
    if mode not in runners or len(sys.argv) < 4:
        sys.exit("usage: runner.py igraph|graph-tool|networkx FILE ROOT [SCORES_OUT] | versions")
    runners[mode](sys.argv[2], int(sys.argv[3]), sys.argv[4] if len(sys.argv) > 4 else "-")


if __name__ == "__main__":
    main()
