"""Click commands, one module per area; ``k10s_forensics.cli`` registers them."""
