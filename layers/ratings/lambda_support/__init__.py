"""What the Lambda handlers share: error answers, request and message bodies, queues, metrics.

Nothing here decides a rating: the handlers call the use cases in `ratings.service`; these
modules turn events into their inputs and their outcomes into answers, the same way for HTTP
and for queues.
"""
