"""Vector outputs written by maps (GeoJSON / GeoPackage polygons)."""
