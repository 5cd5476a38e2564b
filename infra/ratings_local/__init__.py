"""The local stack: the whole service on one machine, on moto, wired from template.yaml."""
