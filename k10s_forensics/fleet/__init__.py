"""Fleet memory: what many bundles say together (``k10s fleet index|analyze|report``).

Flow, one way: bundles -> ``extract`` (the bundle's own analysis plus inventory rows) ->
``store`` (Hive-partitioned Parquet in a FLEET folder) -> ``engines`` (DuckDB by default,
Spark for fleets that outgrow one machine) running the fleet rules of ``rules/*.sql`` ->
``analysis`` (one JSON-ready result) -> ``render`` (text, markdown) and ``report`` (HTML).
See docs/fleet.md.
"""
