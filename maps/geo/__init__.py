"""Coordinates and geometry: projection, the file CRS → WGS84 transform, WKB lines, splitting at crossings."""
