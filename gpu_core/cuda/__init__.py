"""CUDA backend: kernels in .cu files beside the modules that load them (cupy.RawModule)."""
