"""spark-submit entry: run the fleet rules on a Spark cluster over a FLEET folder anywhere
Spark can read (s3a://, gs://, abfss://, hdfs://, a shared file system).

    spark-submit --master yarn --deploy-mode client \\
        --py-files k10s_forensics.zip \\
        --conf spark.hadoop.fs.s3a.aws.credentials.provider=... \\
        k10s_forensics/fleet/spark_job.py s3a://bucket/fleet --format json --out fleet.json

The session comes from spark-submit (its master and --conf); nothing is started locally.
``--out`` is a file on the driver (default: stdout). See docs/fleet.md.
"""

from __future__ import annotations

import argparse
import sys


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="spark_job.py", description="k10s fleet rules on Spark")
    parser.add_argument("fleet", help="FLEET folder or URI (s3a://bucket/fleet)")
    parser.add_argument("--format", choices=("text", "json", "markdown"), default="json")
    parser.add_argument("--out", default=None, help="file on the driver (default: stdout)")
    parser.add_argument("--min-incidents", type=int, default=None)
    parser.add_argument("--period-days", type=float, default=None)
    parser.add_argument("--min-z", type=float, default=None)
    args = parser.parse_args(argv)

    from pyspark.sql import SparkSession

    from k10s_forensics.errors import K10sError
    from k10s_forensics.fleet import render
    from k10s_forensics.fleet.analysis import analyze_fleet

    spark = SparkSession.builder.appName("k10s-fleet").getOrCreate()
    spark.sparkContext.setLogLevel("WARN")
    settings = {"min_incidents": args.min_incidents, "min_z": args.min_z,
                "period_s": None if args.period_days is None else round(args.period_days * 86400)}
    try:
        result = analyze_fleet(args.fleet, engine="spark", settings=settings, engine_options={"spark": spark})
    except K10sError as exc:
        print(f"k10s: error: {exc}", file=sys.stderr)
        return exc.exit_code
    text = {"json": render.to_json, "markdown": render.to_markdown}.get(args.format, render.to_text)(result)
    if args.out:
        with open(args.out, "w", encoding="utf-8") as fh:
            fh.write(text)
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
