"""GPU-hour prices per GPU model: packaged defaults, a user file, or one flat price.

The table is registered in DuckDB as ``k10s_gpu_prices(pattern, usd_per_gpu_hour)``; the
view ``k10s_gpu_price`` in ``_views.sql`` picks the longest pattern contained in a model
name, else the row with pattern ``''`` (the default price).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

import duckdb
import pyarrow as pa

from k10s_forensics.errors import BundleError


class PriceError(BundleError):
    """The price file is unusable (exit 2, like any unusable input)."""


@dataclass(frozen=True)
class PriceTable:
    """USD per GPU-hour by model substring, plus a default for unknown models."""

    models: dict[str, float]
    default_usd: float

    @classmethod
    def default(cls) -> "PriceTable":
        """The packaged table (k10s_forensics/data/gpu_prices.json)."""
        data = json.loads(resources.files("k10s_forensics").joinpath("data/gpu_prices.json").read_text(encoding="utf-8"))
        return cls.from_json(data, "k10s_forensics/data/gpu_prices.json")

    @classmethod
    def from_json(cls, data: object, origin: str) -> "PriceTable":
        if not isinstance(data, dict):
            raise PriceError(f"{origin}: a price file is a JSON object {{\"default\": USD, \"models\": {{\"H100\": USD}}}}")
        models = data.get("models", {k: v for k, v in data.items() if k not in ("default", "_about")})
        try:
            parsed = {str(k): float(v) for k, v in dict(models).items()}
            default = float(data.get("default", 0.0))
        except (TypeError, ValueError) as exc:
            raise PriceError(f"{origin}: prices must be numbers ({exc})") from None
        if any(v < 0 for v in parsed.values()) or default < 0:
            raise PriceError(f"{origin}: prices must not be negative")
        return cls(parsed, default)

    @classmethod
    def from_file(cls, path: str | Path) -> "PriceTable":
        p = Path(path)
        try:
            data = json.loads(p.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise PriceError(f"{p}: unreadable price file ({exc.__class__.__name__}: {exc})") from None
        return cls.from_json(data, str(p))

    def merged(self, other: "PriceTable") -> "PriceTable":
        """This table with ``other``'s models and default on top."""
        return PriceTable({**self.models, **other.models}, other.default_usd if other.default_usd else self.default_usd)

    @classmethod
    def flat(cls, usd: float) -> "PriceTable":
        if usd < 0:
            raise PriceError("--gpu-hour-price must not be negative")
        return cls({}, float(usd))

    def price(self, model: str | None) -> float:
        name = (model or "").upper()
        best = max((p for p in self.models if p.upper() in name), key=len, default=None)
        return self.models[best] if best is not None else self.default_usd

    def register(self, con: duckdb.DuckDBPyConnection) -> None:
        rows = [{"pattern": k, "usd_per_gpu_hour": v} for k, v in self.models.items()] + [{"pattern": "", "usd_per_gpu_hour": self.default_usd}]
        table = pa.Table.from_pylist(rows, schema=pa.schema([("pattern", pa.string()), ("usd_per_gpu_hour", pa.float64())]))
        con.register("_k10s_prices_arrow", table)
        con.execute("CREATE OR REPLACE TEMP TABLE k10s_gpu_prices AS SELECT * FROM _k10s_prices_arrow")
        con.unregister("_k10s_prices_arrow")


__all__ = ["PriceTable", "PriceError"]
