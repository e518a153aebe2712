"""GPU activity over time and the physics that turns it into metric values.

A GPU's time is split into segments; in each, a fraction ``busy`` of the time runs compute
kernels, ``wait`` spins in NCCL (a resident kernel: util reads 100 % at low power and low
tensor activity) and the rest is idle. Scenarios write segments; ``Physics.frame`` turns
them into every metric for every GPU at one sample time, vectorised with numpy.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

import numpy as np

from k10s_forensics.simulate.cluster import Cluster


@dataclass(frozen=True)
class Seg:
    """What a GPU does between ``t0`` and ``t1`` (UTC datetimes)."""

    t0: dt.datetime
    t1: dt.datetime
    busy: float = 0.0
    wait: float = 0.0
    fb0_mib: float = 0.0  # FB used at t0, linear to fb1 at t1
    fb1_mib: float | None = None
    clock: float = 1.0  # SM clock factor (thermal throttle < 1)
    temp_add_c: float = 0.0
    throttle: int = 0  # clock event reasons bits
    present: bool = True  # False: the GPU is gone (fell off the bus)
    tensor: float | None = None  # tensor-pipe level while busy (default: the job's level)


class Activity:
    """Segments per GPU, grouped: GPUs sharing one segment list are evaluated together."""

    def __init__(self, n_gpus: int):
        self.n = n_gpus
        self._lists: list[list[Seg]] = []
        self.group = np.full(n_gpus, -1, dtype=np.int64)
        self.xid = np.zeros(n_gpus, dtype=np.int64)
        self.xid_at: dict[int, tuple[dt.datetime, int]] = {}

    def new_group(self, segs: list[Seg], gids: list[int]) -> None:
        """Give ``gids`` the segment list ``segs`` (replacing what they had)."""
        self._lists.append(sorted(segs, key=lambda s: s.t0))
        self.group[np.asarray(gids, dtype=np.int64)] = len(self._lists) - 1

    def segments(self, gid: int) -> list[Seg]:
        g = int(self.group[gid])
        return self._lists[g] if g >= 0 else []

    def set_xid(self, gid: int, at: dt.datetime, code: int) -> None:
        self.xid_at[gid] = (at, code)

    def state(self, t: dt.datetime) -> dict[str, np.ndarray]:
        """busy, wait, fb, clock, temp_add, throttle, present, tensor (NaN = default) at ``t``."""
        n = self.n
        out = {
            "busy": np.zeros(n), "wait": np.zeros(n), "fb": np.zeros(n), "clock": np.ones(n),
            "temp_add": np.zeros(n), "throttle": np.zeros(n, dtype=np.int64), "present": np.ones(n, dtype=bool),
            "tensor": np.full(n, np.nan),
        }
        for gi, segs in enumerate(self._lists):
            seg = None
            for s in segs:
                if s.t0 <= t < s.t1:
                    seg = s
                    break
            if seg is None:
                continue
            mask = self.group == gi
            fb = seg.fb0_mib
            if seg.fb1_mib is not None:
                span = (seg.t1 - seg.t0).total_seconds()
                frac = (t - seg.t0).total_seconds() / span if span > 0 else 1.0
                fb = seg.fb0_mib + (seg.fb1_mib - seg.fb0_mib) * frac
            out["busy"][mask] = seg.busy
            out["wait"][mask] = seg.wait
            out["fb"][mask] = fb
            out["clock"][mask] = seg.clock
            out["temp_add"][mask] = seg.temp_add_c
            out["throttle"][mask] = seg.throttle
            out["present"][mask] = seg.present
            if seg.tensor is not None:
                out["tensor"][mask] = seg.tensor
        xid = np.zeros(n, dtype=np.int64)
        for gid, (at, code) in self.xid_at.items():
            if at <= t:
                xid[gid] = code
        out["xid"] = xid
        return out


class Physics:
    """Metric values from activity, with per-GPU bias and per-sample noise."""

    def __init__(self, cluster: Cluster, nrng: np.random.Generator, tensor_level: float, train_power: float):
        m = cluster.model
        n = len(cluster.gpus)
        self.m = m
        self.n = n
        self.nrng = nrng
        self.tensor_level = tensor_level
        self.train_power = train_power  # fraction of the power limit while computing
        self.temp_bias = nrng.normal(0.0, 2.0, n)
        self.power_bias = nrng.normal(1.0, 0.025, n)
        self.energy_mj = nrng.uniform(2e9, 9e10, n).round()
        self.replay = np.where(nrng.random(n) < 0.1, nrng.integers(1, 40, n), 0).astype(np.int64)
        self.ecc_sbe = np.where(nrng.random(n) < 0.05, nrng.integers(1, 5, n), 0).astype(np.int64)
        self.idle_clock = {"Hopper": 345, "Ampere": 210, "Ada Lovelace": 210}.get(m["arch"], 300)

    def frame(self, st: dict[str, np.ndarray], dt_s: float) -> dict[str, np.ndarray]:
        """All metric arrays (length = GPUs in the cluster) for one sample."""
        m, n, r = self.m, self.n, self.nrng
        busy, wait = st["busy"], st["wait"]
        idle = np.clip(1.0 - busy - wait, 0.0, 1.0)
        active = (busy + wait) > 0.03
        limit = m["power_limit_w"]
        clock = st["clock"]
        p_train = self.train_power * limit * (0.55 + 0.45 * clock)
        p_wait = m["idle_w"] + 0.09 * limit
        power = (busy * p_train + wait * p_wait + idle * m["idle_w"]) * self.power_bias
        power = np.clip(power * r.normal(1.0, 0.02, n), m["idle_w"] * 0.8, limit)
        util = np.clip(100.0 * (busy * 0.97 + wait) + r.normal(0, 1.2, n), 0, 100)
        util = np.where(active, util, 0.0)
        tensor_lvl = np.where(np.isnan(st["tensor"]), self.tensor_level, st["tensor"])
        tensor = np.clip(busy * tensor_lvl + wait * 0.004 + r.normal(0, 0.008, n), 0, 1) * (busy + wait > 0.01)
        gr = np.clip(busy * 0.96 + wait * 0.88 + r.normal(0, 0.01, n), 0, 1) * active
        sm_active = np.clip(busy * 0.9 + wait * 0.14 + r.normal(0, 0.01, n), 0, 1) * active
        dram = np.clip(busy * 0.33 + wait * 0.015 + r.normal(0, 0.01, n), 0, 1) * active
        copy = np.clip(busy * 28 + wait * 3 + r.normal(0, 1.0, n), 0, 100).round() * active
        temp = 30.0 + 40.0 * power / limit + self.temp_bias + st["temp_add"] + r.normal(0, 0.6, n)
        mem_temp = temp + 6.0 + r.normal(0, 0.5, n)
        sm_clock = np.where(active, m["max_sm_mhz"] * np.minimum(1.0, clock) - r.integers(0, 3, n) * 15, self.idle_clock)
        mem_clock = np.where(active | (st["fb"] > 0), m["max_mem_mhz"], m["max_mem_mhz"])
        fb_used = np.clip(np.round(st["fb"] + np.where(st["fb"] > 0, r.normal(0, 40, n), 0)), 0, m["memory_mib"] - m["reserved_mib"])
        fb_free = m["memory_mib"] - m["reserved_mib"] - fb_used
        throttle = st["throttle"] | np.where(active, 0, 1)
        self.energy_mj = self.energy_mj + np.round(power * dt_s * 1000.0)
        return {
            "util": util.round(), "power": power, "tensor": tensor, "gr": gr, "sm_active": sm_active, "dram": dram,
            "copy": copy, "temp": temp.round(), "mem_temp": mem_temp.round(), "sm_clock": sm_clock.astype(np.int64),
            "mem_clock": mem_clock.astype(np.int64), "fb_used": fb_used, "fb_free": fb_free,
            "fb_reserved": np.full(n, m["reserved_mib"], dtype=np.float64), "energy": self.energy_mj.copy(),
            "throttle": throttle.astype(np.int64), "xid": st["xid"], "replay": self.replay.copy(),
            "present": st["present"], "ecc_sbe": self.ecc_sbe,
        }
