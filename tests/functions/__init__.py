"""Tests of the Lambda handlers (functions/) against moto."""
