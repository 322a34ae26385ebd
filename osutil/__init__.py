"""Operating-system helpers every layer shares, at the bottom of the import layers so that
``maps`` and ``gpu_core`` use one implementation without importing each other: the atomic
file writer (:mod:`osutil.atomic`), the host memory probe (:mod:`osutil.memory`) and forked
workers that die with their parent (:mod:`osutil.children`), bounded reads of files that
must be regular (:mod:`osutil.regular`).
Standard library only."""
