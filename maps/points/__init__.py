"""Points: typed ``LON,LAT`` / ``node:ID``, point files, snapping, polygon areas."""
