"""PostgreSQL (psycopg 3, the ``postgis`` extra): URIs, reading pgRouting and line tables, writing answer tables, the table picker's catalog."""
