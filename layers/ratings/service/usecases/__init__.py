"""The use cases, one module each: a small object whose fields are its dependencies (the
storage ports it uses, the ladders, the clock, the retrier) and whose call is the use case.
`ratings.service.facade` builds them all over one storage."""
