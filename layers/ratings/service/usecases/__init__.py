"""The use cases, one module each: a small object whose fields are its dependencies (the
service's context: ladders, settings and clock; the storage ports it uses; the retrier) and
whose `run` is the use case. `ratings.service.facade` builds them all over one storage."""
