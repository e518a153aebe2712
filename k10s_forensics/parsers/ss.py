"""raw/exec source=ss -> ``tcp_samples``: one row per TCP socket per ``ss -ti``/``ss -tin`` run.

Vectorised with pyarrow (no Python loop per line or socket), a batch of exec rows at a time:
outputs are split into lines; a socket line (``[Netid] [State] Recv-Q Send-Q Local:Port
Peer:Port [Process]``) opens a socket, the indented lines after it (tab or spaces) carry its
``tcp_info`` (some ss versions print it on the socket line itself: both are read). Fields
are pulled from the joined info text by ``ss_fields`` (one tokenisation, first match per
field). ss prints counters only when non-zero (iproute2 ``tcp_stats_print``), so when a
socket has a ``tcp_info`` section an absent counter is 0; without one (``ss -tn``) they
are null. Rates (``send 11.8Mbps``, ``delivery_rate 4123200bps``, plain numbers) become
bit/s. Markdown ``**`` markers (seen in a pasted sample) are removed before parsing; ``*:*`` stays.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from k10s_forensics.parsers.ss_fields import extract, to_int

SOURCE = "exec:ss"
RAW_FILE = "raw/exec.parquet"
STATES = "ESTAB|SYN-SENT|SYN-RECV|FIN-WAIT-1|FIN-WAIT-2|TIME-WAIT|CLOSE-WAIT|LAST-ACK|LISTEN|CLOSING|CLOSED|UNCONN|UNKNOWN"
NETIDS = "tcp|tcp6|mptcp|udp|raw|u_str|u_dgr|u_seq|p_raw|p_dgr|nl|sctp"
SOCKET_RE = rf"^(?:({NETIDS})\s+)?(?:({STATES})\s+)?(\d+)\s+(\d+)\s+(\S+)\s+(\S+)\s*(.*)$"
SOCKET_FIELDS_RE = (
    rf"^(?:(?P<netid>{NETIDS})\s+)?(?:(?P<state>{STATES})\s+)?(?P<recv_q>\d+)\s+(?P<send_q>\d+)\s+"
    r"(?P<local>\S+)\s+(?P<peer>\S+)\s*(?P<rest>.*)$"
)
HEADER_RE = r"^\s*(?:Netid\s+)?(?:State\s+)?Recv-Q\s+Send-Q\s"
TCP_NETIDS = ("", "tcp", "tcp6", "mptcp")
#: Unicode space separators (category Zs): what SQL ``trim`` removes, so a blank line is one of these only.
SPACES = " \u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u202f\u205f\u3000"
#: exec rows per batch (ss output is ~10-70 KB per run): bounds memory, and batches run two at a time.
BATCH_ROWS = 512
THREADS = 2


def _lines(stdout: pa.Array) -> tuple[pa.Array, np.ndarray]:
    """Lines of every output (``**`` and ``\\r`` removed) and the batch row each comes from."""
    text = stdout
    data = stdout.buffers()[2]
    raw = np.frombuffer(data, dtype=np.uint8) if data is not None else np.zeros(0, np.uint8)
    # byte scans of the whole buffer are cheaper than a string search per row; "**" goes first
    if ((raw[:-1] == 42) & (raw[1:] == 42)).any():
        text = pc.replace_substring(text, "**", "")
    if (raw == 13).any():
        text = pc.replace_substring(text, "\r", "")
    lists = pc.split_pattern(text, "\n")
    return pc.list_flatten(lists), np.asarray(pc.list_parent_indices(lists))


def _per_distinct(addr: pa.Array, parse) -> pa.Array:
    """``parse`` applied once per distinct value (socket lines and addresses repeat across runs)."""
    encoded = pc.dictionary_encode(addr)
    return pc.take(parse(encoded.dictionary), encoded.indices)


def _host(addr: pa.Array) -> pa.Array:
    """Host of ``addr:port``: before the last colon; [v6] unwrapped, %scope and ::ffff: removed."""
    host = pc.fill_null(pc.extract_regex(addr, r"^(?P<h>.*):[^:]*$").field("h"), "")
    host = pc.replace_substring_regex(host, r"^\[(.*)\]$", r"\1", max_replacements=1)
    host = pc.replace_substring_regex(host, r"%[^%]*$", "", max_replacements=1)
    return pc.replace_substring_regex(host, r"^::ffff:(\d+\.\d+\.\d+\.\d+)$", r"\1", max_replacements=1)


def _port(addr: pa.Array) -> pa.Array:
    """Numeric port after the last colon; a service name (no ``-n``) is null."""
    return to_int(pc.extract_regex(addr, r":(?P<p>[0-9]+)$").field("p"), bits=32)


def _sockets(lines: pa.Array, row_of: np.ndarray, n_rows: int) -> tuple[pa.Table, np.ndarray, np.ndarray]:
    """Socket heads with their joined info text; plus per line: unrecognised mask."""
    keep = np.asarray(pc.match_substring_regex(lines, r"[^\p{Zs}]"))  # not blank
    header = np.asarray(pc.match_substring_regex(lines, HEADER_RE))
    socket = np.asarray(pc.match_substring_regex(lines, SOCKET_RE)) & ~header & keep
    info = np.asarray(pc.match_substring_regex(lines, r"^\s")) & keep
    unrecognised = keep & ~socket & ~header & ~info
    # socket number of each line: sockets seen so far in its own output (0 = none yet)
    seen = np.cumsum(socket)
    before_row = np.zeros(n_rows + 1, dtype=np.int64)
    if len(seen):
        first_line = np.searchsorted(row_of, np.arange(n_rows), side="left")
        before_row[:n_rows] = np.concatenate([[0], seen])[first_line]
    in_row = seen - before_row[row_of] if len(seen) else seen
    heads_at = np.flatnonzero(socket)
    info_at = np.flatnonzero(info & (in_row > 0))
    owner = seen[info_at] - 1
    offsets = np.concatenate([[0], np.cumsum(np.bincount(owner, minlength=len(heads_at)))]).astype(np.int32)
    info_text = pc.utf8_trim(lines.take(pa.array(info_at, pa.int64())), SPACES)
    joined = pc.binary_join(pa.ListArray.from_arrays(pa.array(offsets), info_text), " ")
    heads = lines.take(pa.array(heads_at, pa.int64()))
    table = pa.table({"head": heads, "tail": joined, "batch_row": pa.array(row_of[heads_at], pa.int64())})
    return table, unrecognised, row_of


def _parse(sockets: pa.Table) -> pa.Table:
    """tcp_samples columns of the TCP sockets (others dropped), plus ``batch_row``."""
    parts = _per_distinct(sockets["head"].combine_chunks(), lambda heads: pc.extract_regex(heads, SOCKET_FIELDS_RE))
    netid = parts.field("netid")
    tcp = pc.is_in(netid, value_set=pa.array(TCP_NETIDS))
    parts = pc.filter(parts, tcp)
    tail = pc.filter(sockets["tail"].combine_chunks(), tcp)
    info = pc.binary_join_element_wise("", parts.field("rest"), tail, "", " ")
    local, peer = parts.field("local"), parts.field("peer")
    cols: dict[str, pa.Array] = {
        "batch_row": pc.filter(sockets["batch_row"].combine_chunks(), tcp),
        "state": pc.if_else(pc.equal(parts.field("state"), ""), pa.scalar(None, pa.string()), parts.field("state")),
        "local_addr": _per_distinct(local, _host), "local_port": _per_distinct(local, _port),
        "peer_addr": _per_distinct(peer, _host), "peer_port": _per_distinct(peer, _port),
        "recv_q": to_int(parts.field("recv_q")), "send_q": to_int(parts.field("send_q")),
    }
    cols.update(extract(info))
    return pa.table(cols)


def _row_issues(ctx, exec_rows: pa.Table) -> None:
    """Failed runs: an error, or a non-zero exit without output."""
    failed = pc.or_(pc.is_valid(exec_rows["error"]), pc.fill_null(pc.not_equal(exec_rows["exit_code"], 0), False))
    for row in exec_rows.filter(failed).select(["_row", "pod", "error", "exit_code", "stdout", "stderr"]).to_pylist():
        if row["error"]:
            ctx.issue(SOURCE, f"ss failed: {row['error'].strip().splitlines()[0][:120]}", row["pod"], RAW_FILE, row["_row"])
        elif row["exit_code"] not in (None, 0) and not (row["stdout"] or "").strip():
            ctx.issue(SOURCE, f"ss exited with code {row['exit_code']}", (row["stderr"] or "")[:200], RAW_FILE, row["_row"])


def _unrecognised(lines: pa.Array, mask: np.ndarray, row_of: np.ndarray, raw_rows: np.ndarray) -> list[tuple[str, int, int]]:
    """(smallest unrecognised line, raw row, count) per output with unrecognised lines."""
    at = np.flatnonzero(mask)
    if not len(at):
        return []
    texts = lines.take(pa.array(at, pa.int64())).to_pylist()
    rows, starts, counts = np.unique(row_of[at], return_index=True, return_counts=True)
    return [(min(texts[start:start + count]), int(raw_rows[row]), count)
            for row, start, count in zip(rows.tolist(), starts.tolist(), counts.tolist())]


def _parse_batch(batch: pa.Table) -> tuple[pa.Table | None, list[tuple[str, int, int]]]:
    """tcp_samples rows of a batch of exec rows, and its unrecognised lines (no ctx: runs in a thread)."""
    lines, row_of = _lines(batch["stdout"].combine_chunks())
    sockets, unrecognised, row_of = _sockets(lines, row_of, batch.num_rows)
    raw_rows = np.asarray(batch["_row"].combine_chunks())
    issues = _unrecognised(lines, unrecognised, row_of, raw_rows)
    parsed = _parse(sockets) if sockets.num_rows else None
    if parsed is None or parsed.num_rows == 0:
        return None, issues
    index = parsed["batch_row"]
    cols = {name: parsed[name] for name in parsed.column_names if name != "batch_row"}
    cols["raw_row"] = pc.take(pa.array(raw_rows), index)
    cols["ts"] = pc.take(batch["captured_at"], index)
    for name in ("namespace", "pod", "node"):
        cols[name] = pc.take(batch[name], index)
    return pa.table(cols), issues


def derive(ctx) -> None:
    """Emit ``tcp_samples`` from raw/exec rows with source ``ss``."""
    # pyarrow and numpy release the GIL: two batches parse at once on two cores; results in order.
    # Raw rows come one Parquet row group at a time, so memory stays flat however many rounds.
    with ThreadPoolExecutor(max_workers=THREADS) as pool:
        for exec_rows in ctx.raw_groups("exec", source="ss"):
            _row_issues(ctx, exec_rows)
            batches = [exec_rows.slice(start, BATCH_ROWS) for start in range(0, exec_rows.num_rows, BATCH_ROWS)]
            for table, issues in pool.map(_parse_batch, batches):
                for example, raw_row, count in issues:
                    ctx.issue(SOURCE, "unrecognised ss line", example, RAW_FILE, raw_row, count=count)
                if table is not None:
                    ctx.emit("tcp_samples", table)


__all__ = ["derive", "SOCKET_RE", "HEADER_RE"]
