"""CPU (numba) side of ``gpu_core.sssp``: the driver (``driver.run``) and one module per
strategy family (``bf``, ``eval``, ``delta``, ``auto``), each with its compiled batch
kernel and the ``setup`` entry points that ``registry`` names."""
