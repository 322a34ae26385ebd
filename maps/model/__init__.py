"""The network model and its builders: ``RoadNetwork``, COO → CSR, line features → arcs, weight profiles and ``--weight`` columns, degree-2 chain merging."""
