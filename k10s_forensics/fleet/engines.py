"""Engines that run the fleet rules over a FLEET folder: DuckDB (default) and Spark.

Both expose the same views ``fleet_<table>`` (file columns only, in schema order; a column no file has yet, from an
index written before it existed, as NULL; an empty view of the right schema when a table has no files) and answer ``rows(sql)`` with plain
Python values, so the analysis above them cannot tell which engine ran. The SQL is DuckDB's;
``SparkEngine`` transpiles each statement with SQLGlot (``read="duckdb", write="spark"``).
"""

from __future__ import annotations

import decimal
import os
import subprocess
from typing import Any

import pyarrow as pa

from k10s_forensics.errors import EngineError, QueryError
from k10s_forensics.fleet.schema import FLEET_TABLES, FleetTable
from k10s_forensics.threads import threads_or_default

ENGINES = ("duckdb", "spark")


def _plain(value: Any) -> Any:
    if isinstance(value, decimal.Decimal):
        return float(value)
    return value


def _is_remote(root: str) -> bool:
    return "://" in root and not root.startswith("file://")


class DuckDBEngine:
    """In-process DuckDB over the Parquet files (handles 10,000s of bundles on one machine).

    The tables are read once into DuckDB's memory (columnar, compressed), so a fleet of many
    small batch files costs one listing, not one per rule.
    """

    name = "duckdb"

    def __init__(self, root: str | os.PathLike[str], *, threads: int | None = None, memory_limit: str | None = None):
        import duckdb

        self._duckdb = duckdb
        self.root = str(root)
        self.con = duckdb.connect(database=":memory:")
        self.con.execute("SET TimeZone = 'UTC'")
        self.con.execute("SET enable_progress_bar = false")
        threads = threads_or_default(threads)
        if threads:
            self.con.execute(f"SET threads = {int(threads)}")
        if memory_limit:
            self.con.execute("SET memory_limit = $m", {"m": memory_limit})
        for table in FLEET_TABLES:
            self._view(table)

    def _view(self, table: FleetTable) -> None:
        from k10s_forensics.fleet.store import FleetStore

        store = FleetStore(self.root)
        if store.files(table.name):
            path = store.glob(table.name).replace("'", "''")
            source = f"read_parquet('{path}', hive_partitioning = false, union_by_name = true)"
            have = {row[0] for row in self.con.execute(f"DESCRIBE SELECT * FROM {source}").fetchall()}
            # a column no file has (an index written before it existed) reads as NULL, as in Spark
            cols = ", ".join(f'"{c}"' if c in have else f'CAST(NULL AS {duck_type(t)}) AS "{c}"' for c, t, _ in table.columns)
            # Read the files once: every rule reads the tables several times.
            self.con.execute(f"CREATE TEMP TABLE fleet_{table.name} AS SELECT {cols} FROM {source}")
        else:
            cols = ", ".join(f'"{c}"' for c in table.column_names)
            self.con.register(f"_empty_{table.name}", table.schema.empty_table())
            self.con.execute(f"CREATE VIEW fleet_{table.name} AS SELECT {cols} FROM _empty_{table.name}")

    def execute(self, sql: str, origin: str) -> None:
        try:
            self.con.execute(sql)
        except self._duckdb.Error as exc:
            raise QueryError(str(exc).strip().splitlines()[0], origin) from None

    def rows(self, sql: str, origin: str) -> list[dict[str, Any]]:
        try:
            return self.con.sql(sql).to_arrow_table().to_pylist()
        except self._duckdb.Error as exc:
            raise QueryError(str(exc).strip().splitlines()[0], origin) from None

    def close(self) -> None:
        self.con.close()


def duck_type(arrow: pa.DataType) -> str:
    """DuckDB's name of a fleet column's Arrow type (schema.py's five)."""
    if pa.types.is_timestamp(arrow):
        return "TIMESTAMPTZ"
    return {pa.string(): "VARCHAR", pa.int64(): "BIGINT", pa.float64(): "DOUBLE", pa.bool_(): "BOOLEAN"}[arrow]


def spark_type(arrow: pa.DataType):
    from pyspark.sql import types as T

    if pa.types.is_timestamp(arrow):
        return T.TimestampType()
    if pa.types.is_int64(arrow):
        return T.LongType()
    if pa.types.is_floating(arrow):
        return T.DoubleType()
    if pa.types.is_boolean(arrow):
        return T.BooleanType()
    return T.StringType()


def local_spark(app: str = "k10s-fleet", master: str | None = None, conf: dict[str, str] | None = None):
    """A Spark session: ``master`` (default ``local[2]`` or $K10S_SPARK_MASTER) with small,
    test-friendly defaults; on a real cluster use spark-submit (docs/fleet.md)."""
    try:
        from pyspark.sql import SparkSession
    except ImportError:
        raise EngineError("--engine spark needs pyspark (pip install 'k10s-forensics[spark]') and a Java runtime") from None
    builder = SparkSession.builder.appName(app).master(master or os.environ.get("K10S_SPARK_MASTER", "local[2]"))
    settings = {"spark.ui.enabled": "false", "spark.sql.shuffle.partitions": os.environ.get("K10S_SPARK_SHUFFLE_PARTITIONS", "4"), "spark.ui.showConsoleProgress": "false", "spark.sql.session.timeZone": "UTC",
                "spark.driver.memory": os.environ.get("K10S_SPARK_DRIVER_MEMORY", "2g"), "spark.sql.ansi.enabled": "false"}
    settings.update(conf or {})
    for key, value in settings.items():
        builder = builder.config(key, value)
    try:
        spark = builder.getOrCreate()
    except Exception as exc:  # no java, bad master: one line, not a JVM trace
        raise EngineError(f"Spark did not start ({exc.__class__.__name__}: {str(exc).splitlines()[0] if str(exc) else ''}); "
                               "is Java installed (java -version)?") from None
    spark.sparkContext.setLogLevel("ERROR")
    return spark


def stop_spark(spark) -> None:
    """Stop ``spark`` and the JVM PySpark launched for it, which outlives ``SparkSession.stop()`` until
    Python exits (holding its memory); a later ``local_spark`` launches a fresh one."""
    from pyspark import SparkContext

    if SparkContext._gateway is None:  # stopped already: its JVM is gone
        return
    spark.stop()
    gateway, SparkContext._gateway, SparkContext._jvm = SparkContext._gateway, None, None
    proc = getattr(gateway, "proc", None)  # set by pyspark's launch_gateway; None for a gateway given to it
    if proc is None:
        return
    try:
        gateway.shutdown()
    except Exception:  # noqa: BLE001 - the JVM is ended below either way
        pass
    try:
        proc.stdin.close()  # PySpark's gateway server exits on EOF of its stdin
        proc.wait(timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        proc.kill()
        proc.wait()


class SparkEngine:
    """The same views and queries on Apache Spark; ``root`` may be a local path or s3a://..."""

    name = "spark"

    def __init__(self, root: str | os.PathLike[str], *, spark=None, master: str | None = None):
        self.root = str(root).rstrip("/")
        self.spark = spark or local_spark(master=master)
        self._own = spark is None
        for table in FLEET_TABLES:
            self._view(table)

    def _view(self, table: FleetTable) -> None:
        from pyspark.sql import types as T

        path = f"{self.root}/{table.name}"
        schema = T.StructType([T.StructField(n, spark_type(t), True) for n, t, _ in table.columns])
        local_empty = not _is_remote(self.root) and not any(
            p.endswith(".parquet") for _, _, files in os.walk(path.removeprefix("file://")) for p in files)
        if local_empty:
            df = self.spark.createDataFrame([], schema)
        else:
            df = (self.spark.read.option("recursiveFileLookup", "true").option("pathGlobFilter", "part-*.parquet")
                  .parquet(path))
            df = df.select(*[df[c].cast(schema[c].dataType) if c in df.columns else _null(c, schema[c].dataType) for c in table.column_names])
        df.cache().createOrReplaceTempView(f"fleet_{table.name}")  # every rule reads the tables several times

    def _sql(self, sql: str, origin: str):
        import sqlglot

        try:
            statements = sqlglot.transpile(sql, read="duckdb", write="spark")
        except sqlglot.errors.SqlglotError as exc:
            raise QueryError(f"cannot transpile to Spark SQL ({str(exc).splitlines()[0]})", origin) from None
        result = None
        for statement in statements:
            try:
                result = self.spark.sql(statement)
            except Exception as exc:
                raise QueryError(f"Spark: {str(exc).strip().splitlines()[0][:300]}", origin) from None
        return result

    def execute(self, sql: str, origin: str) -> None:
        self._sql(sql.replace("CREATE OR REPLACE TEMP VIEW", "CREATE OR REPLACE TEMPORARY VIEW"), origin)

    def rows(self, sql: str, origin: str) -> list[dict[str, Any]]:
        df = self._sql(sql, origin)
        try:
            return [{k: _plain(v) for k, v in row.asDict().items()} for row in df.collect()]
        except Exception as exc:
            raise QueryError(f"Spark: {str(exc).strip().splitlines()[0][:300]}", origin) from None

    def close(self) -> None:
        if self._own:
            stop_spark(self.spark)


def _null(name: str, dtype):
    from pyspark.sql import functions as F

    return F.lit(None).cast(dtype).alias(name)


def open_engine(name: str, root: str, **options: Any):
    """``duckdb`` or ``spark`` over the fleet at ``root``."""
    if name == "duckdb":
        return DuckDBEngine(root, threads=options.get("threads"), memory_limit=options.get("memory_limit"))
    if name == "spark":
        return SparkEngine(root, spark=options.get("spark"), master=options.get("master"))
    raise EngineError(f"unknown engine {name!r} (use one of {', '.join(ENGINES)})")


__all__ = ["DuckDBEngine", "SparkEngine", "open_engine", "local_spark", "stop_spark", "ENGINES", "EngineError"]
