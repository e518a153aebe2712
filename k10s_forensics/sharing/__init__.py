"""Sharing bundles with support: pack, verify, redact (see docs/sharing.md).

* ``pack.pack`` — one reproducible, streamed ``.tar.gz``;
* ``verify.verify`` — format, manifest, checksums and Parquet readability of a folder or archive;
* ``redact.redact`` — standard (secrets) or strict (also identities, consistent keyed pseudonyms);
* ``k10s_forensics.store.archive`` — safe unpacking of archives into the cache (used by ``Bundle.open``).
"""
