"""Software-defined assets, one module per stage, with their pure polars transforms."""
