"""CPU backend: every strategy compiled with numba, same results and telemetry as CUDA."""
