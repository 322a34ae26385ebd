"""One-way edges of an undirected GraphML (OSMnx ``to_undirected``; issue 40 item 1).

OSMnx's ``to_undirected`` keeps each edge's true direction in ``from``/``to`` and its
geometry starts at ``from``; the edge's source/target may be either way round. The
reference reading below is OSMnx's: the directed graph of ``from`` → ``to`` one-ways.
"""

from __future__ import annotations

import networkx as nx

from maps.formats.graphml import load_graphml

_HEAD = """<?xml version="1.0" encoding="utf-8"?>
<graphml xmlns="http://graphml.graphdrawing.org/xmlns">
<key id="x" for="node" attr.name="x" attr.type="double"/>
<key id="y" for="node" attr.name="y" attr.type="double"/>
<key id="osmid" for="node" attr.name="osmid" attr.type="long"/>
<key id="hw" for="edge" attr.name="highway" attr.type="string"/>
<key id="ow" for="edge" attr.name="oneway" attr.type="string"/>
<key id="len" for="edge" attr.name="length" attr.type="double"/>
<key id="fr" for="edge" attr.name="from" attr.type="long"/>
<key id="to" for="edge" attr.name="to" attr.type="long"/>
<key id="geo" for="edge" attr.name="geometry" attr.type="string"/>
<graph edgedefault="undirected">
"""
# Three nodes on a triangle; node 11 -> 12 -> 13 -> 11 is a one-way ring (osmids 11..13).
_NODES = {11: (10.000, 50.000), 12: (10.001, 50.000), 13: (10.0005, 50.001)}


def _file(tmp_path, edges: list[str]) -> str:
    nodes = "".join(
        f'<node id="{n}"><data key="x">{x}</data><data key="y">{y}</data>'
        f'<data key="osmid">{n}</data></node>\n'
        for n, (x, y) in _NODES.items()
    )
    p = tmp_path / "u.graphml"
    p.write_text(_HEAD + nodes + "\n".join(edges) + "\n</graph></graphml>\n")
    return str(p)


def _edge(src: int, dst: int, extra: str = "") -> str:
    return (f'<edge source="{src}" target="{dst}"><data key="hw">primary</data>'
            f'<data key="ow">True</data><data key="len">100</data>{extra}</edge>')


def _geom(a: int, b: int) -> str:
    (x0, y0), (x1, y1) = _NODES[a], _NODES[b]
    return f'<data key="geo">LINESTRING ({x0} {y0}, {x1} {y1})</data>'


def _ft(a: int, b: int) -> str:
    return f'<data key="fr">{a}</data><data key="to">{b}</data>'


def _drive_arcs(path: str) -> set[tuple[int, int]]:
    net = load_graphml(path, profile="drive")
    ids = net.node_ids
    return set(zip(ids[net.arc_sources()].tolist(), ids[net.indices].tolist(), strict=True))


RING = {(11, 12), (12, 13), (13, 11)}  # OSMnx's directed reading (from -> to)


def test_from_to_orients_reversed_edges(tmp_path) -> None:
    # every edge written target -> source, as to_undirected may; from/to say the truth
    p = _file(tmp_path, [_edge(12, 11, _ft(11, 12)), _edge(13, 12, _ft(12, 13)),
                         _edge(11, 13, _ft(13, 11))])
    got = _drive_arcs(p)
    assert got == RING
    g = nx.DiGraph(list(got))
    assert nx.number_strongly_connected_components(g) == 1  # one ring, as OSMnx has it


def test_geometry_orients_without_from_to(tmp_path) -> None:
    p = _file(tmp_path, [_edge(12, 11, _geom(11, 12)), _edge(13, 12, _geom(12, 13)),
                         _edge(13, 11, _geom(13, 11))])
    assert _drive_arcs(p) == RING


def test_source_target_when_nothing_else(tmp_path) -> None:
    p = _file(tmp_path, [_edge(11, 12), _edge(12, 13), _edge(13, 11)])
    assert _drive_arcs(p) == RING


def test_route_follows_the_one_way(tmp_path) -> None:
    # 11 -> 12 is one arc; 12 -> 11 must go round the ring (two arcs), never against it
    p = _file(tmp_path, [_edge(12, 11, _ft(11, 12) + _geom(11, 12)),
                         _edge(13, 12, _ft(12, 13)), _edge(11, 13, _ft(13, 11))])
    got = _drive_arcs(p)
    assert (12, 11) not in got
    assert nx.shortest_path(nx.DiGraph(list(got)), 12, 11) == [12, 13, 11]


def test_networkx_written_undirected_matches_the_directed_graph(tmp_path) -> None:
    # OSMnx's to_undirected, as it does it: from/to set on every edge, then a MultiGraph;
    # networkx then writes (1, 4) for the one-way 4 -> 1, and so on
    g = nx.MultiDiGraph()
    pos = {1: (10.0, 50.0), 2: (10.001, 50.0), 3: (10.001, 50.001), 4: (10.0, 50.001),
           5: (10.002, 50.0)}
    for n, (x, y) in pos.items():
        g.add_node(n, x=x, y=y, osmid=n)
    one_way = [(1, 2), (2, 3), (3, 4), (4, 1)]  # a one-way ring
    for u, v in one_way:
        g.add_edge(u, v, highway="primary", oneway=True, length=100.0)
    for u, v in ((2, 5), (5, 2)):  # a two-way street, both directions as OSMnx keeps them
        g.add_edge(u, v, highway="primary", oneway=False, length=100.0)
    h = nx.MultiGraph()
    h.add_nodes_from(g.nodes(data=True))
    for u, v, d in g.edges(data=True):
        d = {**d, "from": u, "to": v}
        if not d["oneway"] and h.has_edge(u, v):
            continue  # the reciprocal of a two-way edge, as OSMnx drops it
        h.add_edge(u, v, **d)
    p = tmp_path / "nx.graphml"
    nx.write_graphml(h, p)
    assert "<edge source=\"1\" target=\"4\"" in p.read_text()  # written against its way
    got = _drive_arcs(str(p))
    assert got == {*one_way, (2, 5), (5, 2)}
    ref = nx.DiGraph(list(g.edges()))
    assert nx.number_strongly_connected_components(nx.DiGraph(list(got))) == \
        nx.number_strongly_connected_components(ref) == 1
