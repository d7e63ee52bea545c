"""Stage links."""
