"""raw/exec source=ss -> ``tcp_samples``: one row per TCP socket per ``ss -ti``/``ss -tin`` run.

Vectorised in DuckDB: outputs are split into lines; a socket line (``[Netid] [State]
Recv-Q Send-Q Local:Port Peer:Port [Process]``) opens a socket, the indented lines after
it (tab or spaces) carry its ``tcp_info`` (some ss versions print it on the socket line
itself: both are read). Fields are pulled with RE2 ``regexp_extract`` over the joined
info text. ss prints counters only when non-zero (iproute2 ``tcp_stats_print``), so when a
socket has a ``tcp_info`` section an absent counter is 0; without one (``ss -tn``) they
are null. Rates (``send 11.8Mbps``, ``delivery_rate 4123200bps``, plain numbers) become
bit/s. Markdown ``**`` markers (seen in a pasted sample) are removed before parsing; ``*:*`` stays.
"""

from __future__ import annotations

import duckdb
import pyarrow as pa
import pyarrow.compute as pc

SOURCE = "exec:ss"
RAW_FILE = "raw/exec.parquet"
STATES = "ESTAB|SYN-SENT|SYN-RECV|FIN-WAIT-1|FIN-WAIT-2|TIME-WAIT|CLOSE-WAIT|LAST-ACK|LISTEN|CLOSING|CLOSED|UNCONN|UNKNOWN"
SOCKET_RE = rf"^(?:(tcp|tcp6|mptcp|udp|raw|u_str|u_dgr|u_seq|p_raw|p_dgr|nl|sctp)\s+)?(?:({STATES})\s+)?(\d+)\s+(\d+)\s+(\S+)\s+(\S+)\s*(.*)$"
HEADER_RE = r"^\s*(?:Netid\s+)?(?:State\s+)?Recv-Q\s+Send-Q\s"
CONG = "cubic|bbr2|bbr3|bbr|reno|dctcp|bic|htcp|vegas|westwood|illinois|hybla|highspeed|scalable|yeah|lp|veno|cdg|nv|prague"


def _x(pattern: str, group: int = 1) -> str:
    return f"nullif(regexp_extract(info, '{pattern}', {group}), '')"


def _counter(name: str, pattern: str) -> str:
    """An integer counter that ss omits when zero: 0 when the socket has tcp_info, else null."""
    return f"CASE WHEN has_info THEN coalesce(try_cast({_x(pattern)} AS BIGINT), 0) END AS {name}"


def _rate(name: str, word: str) -> str:
    """``send 11.8Mbps`` / ``delivery_rate 4123200bps`` / plain ``send 4123200`` -> bit/s."""
    number = _x(rf"(?:^|\s){word}[ :]([0-9.]+)")
    value = f"try_cast({number} AS DOUBLE)"
    unit = _x(rf"(?:^|\s){word}[ :][0-9.]+([KMGT]?)bps")
    scale = f"CASE coalesce({unit}, '') WHEN 'K' THEN 1e3 WHEN 'M' THEN 1e6 WHEN 'G' THEN 1e9 WHEN 'T' THEN 1e12 ELSE 1 END"
    return f"{value} * {scale} AS {name}"


def _addr(col: str, part: str) -> str:
    """Split ``addr:port`` at the last colon; unwrap [v6], ::ffff:v4 and %scope."""
    host = f"regexp_extract({col}, '^(.*):[^:]*$', 1)"
    host = f"regexp_replace(regexp_replace({host}, '^\\[(.*)\\]$', '\\1'), '%[^%]*$', '')"
    host = f"regexp_replace({host}, '^::ffff:(\\d+\\.\\d+\\.\\d+\\.\\d+)$', '\\1')"
    port = f"try_cast(regexp_extract({col}, ':([0-9]+)$', 1) AS INTEGER)"
    return host if part == "host" else port


_W = r"(?:^|\s)"
_SELECT = ",\n       ".join(
    [
        "_row", "state",
        f"{_addr('local_full', 'host')} AS local_addr", f"{_addr('local_full', 'port')} AS local_port",
        f"{_addr('peer_full', 'host')} AS peer_addr", f"{_addr('peer_full', 'port')} AS peer_port",
        f"try_cast({_x(_W + r'rtt:([0-9.]+)/')} AS DOUBLE) AS rtt_ms",
        f"try_cast({_x(_W + r'rtt:[0-9.]+/([0-9.]+)')} AS DOUBLE) AS rttvar_ms",
        f"try_cast({_x(_W + r'minrtt:([0-9.]+)')} AS DOUBLE) AS minrtt_ms",
        f"CASE WHEN has_info THEN coalesce(try_cast({_x(_W + r'retrans:[0-9]+/([0-9]+)')} AS BIGINT), 0) END AS retrans_total",
        f"CASE WHEN has_info THEN coalesce(try_cast({_x(_W + r'retrans:([0-9]+)/')} AS BIGINT), 0) END AS retrans_current",
        _counter("bytes_sent", _W + r"bytes_sent:([0-9]+)"),
        _counter("bytes_retrans", _W + r"bytes_retrans:([0-9]+)"),
        _counter("bytes_acked", _W + r"bytes_acked:([0-9]+)"),
        _counter("bytes_received", _W + r"bytes_received:([0-9]+)"),
        _counter("segs_out", _W + r"segs_out:([0-9]+)"),
        _counter("lost", _W + r"lost:([0-9]+)"),
        _counter("notsent_bytes", _W + r"notsent:([0-9]+)"),
        _counter("busy_ms", _W + r"busy:([0-9]+)ms"),
        _counter("rwnd_limited_ms", _W + r"rwnd_limited:([0-9]+)ms"),
        f"try_cast({_x(_W + r'cwnd:([0-9]+)')} AS BIGINT) AS cwnd",
        _rate("send_rate_bps", "send"),
        _rate("delivery_rate_bps", "delivery_rate"),
        _x(_W + "(" + CONG + r")(?:\s|$)") + " AS cong_alg",
        "try_cast(" + _x(r"users:\(\(.*?pid=([0-9]+)") + " AS BIGINT) AS pid",
        "recv_q", "send_q",
    ]
)


SQL = f"""
WITH lines AS (
    SELECT _row, unnest(parts) AS line, unnest(range(1, len(parts) + 1)) AS line_no
    FROM (SELECT _row, string_split(replace(replace(stdout, '**', ''), chr(13), ''), chr(10)) AS parts
          FROM batch WHERE stdout IS NOT NULL)
), tagged AS (
    SELECT _row, line_no, line,
           regexp_matches(line, '{SOCKET_RE}') AND NOT regexp_matches(line, '{HEADER_RE}') AS is_socket,
           regexp_matches(line, '{HEADER_RE}') AS is_header,
           regexp_matches(line, '^\\s') AS is_info
    FROM lines WHERE trim(line) <> ''
), grouped AS (
    SELECT *, sum(is_socket::INTEGER) OVER (PARTITION BY _row ORDER BY line_no) AS sock FROM tagged
), sockets AS (
    SELECT _row, sock,
           any_value(CASE WHEN is_socket THEN line END) AS head,
           ' ' || coalesce(string_agg(CASE WHEN is_info THEN trim(line) END, ' ' ORDER BY line_no), '') AS tail
    FROM grouped WHERE sock > 0 AND (is_socket OR is_info) GROUP BY _row, sock
), parsed AS (
    SELECT _row, sock,
           regexp_extract(head, '{SOCKET_RE}', 1) AS netid,
           nullif(regexp_extract(head, '{SOCKET_RE}', 2), '') AS state,
           try_cast(regexp_extract(head, '{SOCKET_RE}', 3) AS BIGINT) AS recv_q,
           try_cast(regexp_extract(head, '{SOCKET_RE}', 4) AS BIGINT) AS send_q,
           regexp_extract(head, '{SOCKET_RE}', 5) AS local_full,
           regexp_extract(head, '{SOCKET_RE}', 6) AS peer_full,
           ' ' || regexp_extract(head, '{SOCKET_RE}', 7) || tail || ' ' AS info
    FROM sockets
), fields AS (
    SELECT *, regexp_matches(info, '(?:^|\\s)(?:rtt|cwnd|mss|rto):') AS has_info FROM parsed
    WHERE netid IN ('', 'tcp', 'tcp6', 'mptcp')
)
SELECT {_SELECT}
FROM fields ORDER BY _row, sock
"""

STATS_SQL = f"""
SELECT _row, count(*) FILTER (WHERE is_socket) AS sockets,
       count(*) FILTER (WHERE NOT is_socket AND NOT is_header AND NOT is_info) AS unrecognised,
       min(line) FILTER (WHERE NOT is_socket AND NOT is_header AND NOT is_info) AS example
FROM (SELECT _row, line,
             regexp_matches(line, '{SOCKET_RE}') AND NOT regexp_matches(line, '{HEADER_RE}') AS is_socket,
             regexp_matches(line, '{HEADER_RE}') AS is_header, regexp_matches(line, '^\\s') AS is_info
      FROM (SELECT _row, unnest(string_split(replace(replace(stdout, '**', ''), chr(13), ''), chr(10))) AS line
            FROM batch WHERE stdout IS NOT NULL) WHERE trim(line) <> '')
GROUP BY _row
"""


def _issues(ctx, exec_rows: pa.Table, con) -> None:
    for row in exec_rows.select(["_row", "pod", "error", "exit_code", "stdout", "stderr"]).to_pylist():
        if row["error"]:
            ctx.issue(SOURCE, f"ss failed: {row['error'].strip().splitlines()[0][:120]}", row["pod"], RAW_FILE, row["_row"])
        elif row["exit_code"] not in (None, 0) and not (row["stdout"] or "").strip():
            ctx.issue(SOURCE, f"ss exited with code {row['exit_code']}", (row["stderr"] or "")[:200], RAW_FILE, row["_row"])
    for row in con.sql(STATS_SQL).to_arrow_table().to_pylist():
        if row["unrecognised"]:
            ctx.issue(SOURCE, "unrecognised ss line", row["example"], RAW_FILE, row["_row"], count=row["unrecognised"])


def derive(ctx) -> None:
    """Emit ``tcp_samples`` from raw/exec rows with source ``ss``."""
    exec_rows = ctx.raw("exec", source="ss")
    if exec_rows.num_rows == 0:
        return
    con = duckdb.connect(database=":memory:")
    try:
        con.register("batch", exec_rows.select(["_row", "stdout"]))
        _issues(ctx, exec_rows, con)
        sockets = con.sql(SQL).to_arrow_table()
    finally:
        con.close()
    if sockets.num_rows == 0:
        return
    index = pc.index_in(sockets["_row"], value_set=exec_rows["_row"])
    cols = {name: sockets[name] for name in sockets.column_names if name != "_row"}
    cols["raw_row"] = sockets["_row"]
    cols["ts"] = pc.take(exec_rows["captured_at"], index)
    for name in ("namespace", "pod", "node"):
        cols[name] = pc.take(exec_rows[name], index)
    ctx.emit("tcp_samples", pa.table(cols))


__all__ = ["derive"]
