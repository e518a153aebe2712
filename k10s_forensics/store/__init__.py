"""The bundle on disk: opening and locking it, its raw and derived tables, archives, damage."""
