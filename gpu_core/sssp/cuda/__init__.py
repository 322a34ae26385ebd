"""CUDA side of ``gpu_core.sssp``: the driver (``driver.run``), what the strategies share
(``context``) and one module per strategy family, each beside its .cu kernels. Imported
only when the cupy backend runs."""
