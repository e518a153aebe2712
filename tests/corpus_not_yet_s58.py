"""The corpus' expectations k10s does not meet yet from session 58's blind batches (350-), each with why; part of
tests/corpus_not_yet.NOT_YET (strict xfail: a case that starts passing must leave this list)."""

from __future__ import annotations

#: Expectations of session 58's batches that we do not meet, with why.
NOT_YET_S58: dict[str, str] = {
    # batch 353 (multinode-network-bind-rendezvous-hostname-2024-2026): none (4/4 controls read right both ways as
    # collected at 6ab4b65d, 0 of 4 named, no finding at all): sglang-3794 (TP1..TP7 start NCCL, TP7's scheduler
    # exception with no body), verl-2550 (both nodes' workers cannot resolve the bracketed IPv6 store address),
    # torchtune-392 and vllm-omni-6425 (a DistNetworkError on a rendezvous port in use); see
    # tests/test_multinode_network_bind_rendezvous_hostname_2024_2026_batch353_wordings.py
    # session 58 leftovers
}
