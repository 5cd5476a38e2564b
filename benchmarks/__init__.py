"""Benchmarks: measurements to read, not tests to pass.

`python -m benchmarks` runs every module of this package in turn (`make bench`);
`python -m benchmarks NAME...` runs the named ones; each also runs alone as
`python -m benchmarks.NAME`.
"""
