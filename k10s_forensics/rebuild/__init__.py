"""Rebuild: deriving a bundle's tables from its raw layer, serially or in a worker pool."""
