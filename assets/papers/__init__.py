"""Stage papers."""
