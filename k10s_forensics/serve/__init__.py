"""``k10s serve``: a read-only Kubernetes API over a bundle that real kubectl accepts.

Python API (used by capture's end-to-end tests)::

    from k10s_forensics.serve import Faults, start_server

    with start_server("bundle/", faults=Faults(latency_ms=50, error_rate_429=0.05)) as srv:
        srv.url                      # "http://127.0.0.1:<port>"
        srv.write_kubeconfig(path)   # a kubeconfig for kubectl / the kubernetes client
        srv.stats()                  # request counts, faults injected, vanished pods

See docs/serve.md for the replay semantics (listing selection, exec and proxy cursors).
"""

from k10s_forensics.serve.app import ServeServer, start_server
from k10s_forensics.serve.faults import Faults
from k10s_forensics.serve.store import Store

__all__ = ["Faults", "ServeServer", "Store", "start_server"]
