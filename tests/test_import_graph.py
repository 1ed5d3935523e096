"""No import circle anywhere in games, kinplay and api: each module's imports, those inside
functions too (grimp reads them all), form a graph without a cycle. A circle is named with the
imports that tie it."""

import grimp
import networkx as nx


def test_it_has_no_import_circle():
    graph = grimp.build_graph("games", "kinplay", "api")
    edges = nx.DiGraph()
    for module in graph.modules:
        for imported in graph.find_modules_directly_imported_by(module):
            edges.add_edge(module, imported)
    circles = []
    for component in nx.strongly_connected_components(edges):
        if len(component) > 1:
            ties = sorted(f"{a} -> {b}" for a, b in edges.subgraph(component).edges)
            circles.append("\n  ".join(ties))
    assert not circles, "import circles:\n  " + "\n\n  ".join(circles)
