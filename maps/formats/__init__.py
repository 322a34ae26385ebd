"""Map readers, one module per format (the table of formats is ``maps.formats.registry.FORMATS``)."""
