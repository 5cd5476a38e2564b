"""Checks of template.yaml: lint, the SAM transform, and consistency with the code."""
