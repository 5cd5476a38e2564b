"""The use cases, one module each. Those of games, podiums, links and reads are functions:
their first arguments are what they need (a unit of work, the read views, the service's
context), then what the caller sent. The moderation use cases and the background jobs are
small types whose fields are their dependencies and whose `run` (or `step`) is the use case.
`ratings.service.facade.RatingService` calls each over one storage."""
