"""The screens of ``k10s view``: one view per module, all built on :mod:`.table`."""
