"""`ratings`: the operators' command line. Export stored games, replay them under other rules,
calibrate the expected-score curve against real results, and simulate games to try rules on.

Every command reads and writes the export format: one stored game result per line (JSON
Lines), exactly as `GET /v1/ladders/{ladder}/games/{game_id}` returns it. One more is for the
operator of a deployment: `republish` publishes again the events of the stream batches in the
events DLQ (`ratings_cli.republish`).
"""
