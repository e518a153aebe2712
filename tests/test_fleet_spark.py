"""The same fleet rules on Apache Spark (local session, one for this module) and DuckDB:
identical rows on the same FLEET folder, and the planted recurrences found by both.

Needs pyspark and a Java runtime (``./dev.sh setup`` installs Debian's default-jre-headless
when ``java`` is missing); skipped with the reason where they are absent.
"""

from __future__ import annotations

import shutil

import pytest

from k10s_forensics.fleet.analysis import analyze_fleet
from k10s_forensics.fleet.index import index_fleet
from k10s_forensics.simulate.fleet import plan_fleet
from k10s_forensics.simulate.fleet_bundles import write_bundles
from k10s_forensics.simulate.fleet_rows import write_rows
from tests.fleet_helpers import expected, found, rows_by_rule

pytest.importorskip("pyspark")
if not shutil.which("java"):
    pytest.skip("no java on PATH (./dev.sh setup installs default-jre-headless)", allow_module_level=True)


#: Spark tuned for a few hundred rows: the JIT's first tier and the serial collector for a JVM that lives a
#: minute, no whole-stage code generation, interpreted expressions and no adaptive re-planning (every query
#: compiles Java code otherwise). Same results; measured on this module, 2 cores: 81 -> 31 CPU s, 49 -> 30 s.
SMALL_DATA_CONF = {"spark.sql.shuffle.partitions": "2", "spark.driver.extraJavaOptions": "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC",
                   "spark.sql.codegen.wholeStage": "false", "spark.sql.codegen.factoryMode": "NO_CODEGEN",
                   "spark.sql.adaptive.enabled": "false"}


@pytest.fixture(scope="module")
def spark():
    from k10s_forensics.fleet.engines import local_spark, stop_spark

    session = local_spark("k10s-fleet-tests", master="local[2]", conf=SMALL_DATA_CONF)
    from pyspark import SparkContext

    jvm = SparkContext._gateway.proc
    yield session
    stop_spark(session)  # and its JVM, which would otherwise live (and hold its memory) until the worker exits
    assert jvm.poll() is not None and SparkContext._gateway is None, "the JVM outlived stop_spark"
    stop_spark(session)  # twice is harmless


def _both(path: str, spark):
    duck = analyze_fleet(path)
    sp = analyze_fleet(path, engine="spark", engine_options={"spark": spark})
    return duck, sp


def test_spark_and_duckdb_agree_on_a_simulated_fleet(tmp_path, spark):
    plan = plan_fleet(41, 400)
    write_rows(plan, tmp_path / "fleet", batch_size=150)
    duck, sp = _both(str(tmp_path / "fleet"), spark)
    assert sp["fleet"]["engine"] == "spark"
    assert rows_by_rule(sp) == rows_by_rule(duck)
    assert found(sp) == expected(plan.truth)
    assert sp["bundles"] == duck["bundles"] and sp["fleet"]["bundles"] == duck["fleet"]["bundles"] == 400


def test_spark_and_duckdb_agree_on_indexed_bundles(tmp_path, spark):
    plan = plan_fleet(42, 24)
    write_bundles(plan, tmp_path / "bundles")
    index_fleet([str(tmp_path / "bundles")], tmp_path / "fleet", jobs=2)
    duck, sp = _both(str(tmp_path / "fleet"), spark)
    assert rows_by_rule(sp) == rows_by_rule(duck)
    truth = expected(plan.truth)
    truth["driver-hangs"] = set()
    assert found(sp) == truth
