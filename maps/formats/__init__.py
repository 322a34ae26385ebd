"""Map readers, one module per format (the table of formats is ``maps.load.FORMATS``)."""
