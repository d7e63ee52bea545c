"""Source clients: one interface per source, a live and a snapshot implementation each."""
