"""The key map of ``k10s view``: the ``?`` help and docs/view.md are both made from it."""

KEYS: tuple[tuple[str, str], ...] = (
    (":fleet", "GPU nodes, idle first (the landing view)"),
    (":jobs", "training jobs, one row per rank"),
    (":queue", "Kueue LocalQueue → ClusterQueue, pending and admitted workloads"),
    (":findings", "what the analysis found, most severe first"),
    (":events", "Kubernetes events"),
    (":logs", "recognised log lines (OOM, NCCL, torchrun, Xid)"),
    (":quit", "leave (also q)"),
    ("/", "filter the rows (substring; Enter keeps it, Esc clears it)"),
    ("< >", "sort by the previous / next column"),
    ("!", "reverse the sort"),
    ("↑ ↓ PgUp PgDn", "move"),
    ("Ctrl+Home Ctrl+End", "first / last row (of all rows, however many)"),
    ("← → Home End", "scroll sideways"),
    ("Enter", "drill down: node → its GPUs, rank → its timeline and log lines, finding → in full"),
    ("Esc", "back (closes the prompt, clears the filter, then goes up)"),
    ("y", "why? the diagnostic of the selected row: findings naming it, then its facts"),
    ("d", "what changed since the baseline on the selected node or job (k10s view BUNDLE --baseline B)"),
    ("r", "write the HTML report (and open it)"),
    ("s", "live mode: save the current window as an ordinary bundle"),
    ("R", "live mode: retry the connection now"),
    ("?", "this help"),
    ("q", "quit"),
)

#: The views, by command name.
VIEWS = ("fleet", "jobs", "queue", "findings", "events", "logs")
