"""The layer-normalisation checks: one module per function (check id ``<module>.<name>``)."""
