"""Operating-system helpers every layer shares, at the bottom of the import layers so that
``maps`` and ``gpu_core`` use one implementation without importing each other: the atomic
file writer (:mod:`osutil.atomic`) and the host memory probe (:mod:`osutil.memory`).
Standard library only."""
