"""numba helpers shared by more than one capability's CPU side: the cycle-counter clock
(``clock``), exact key weights and CSR row checks (``csr``), and the binary heap
(``heap``) of the sequential Dijkstra searches."""
