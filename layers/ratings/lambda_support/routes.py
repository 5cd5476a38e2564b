"""The moderation routes: served by the Moderation function under a credential of its own
(template.yaml: AWS_IAM on each of their methods), and known to the game Api, which answers
their other methods 405 with `Allow` (its ANY events cover their paths).

Each path as API Gateway declares it, with the methods the Moderation function serves.
"""

MODERATION_ROUTES: dict[str, frozenset[str]] = {
    "/v1/players/{player_id}/erasure": frozenset({"GET", "POST"}),
    "/v1/ladders/{ladder}/sanctions": frozenset({"POST"}),
    "/v1/ladders/{ladder}/sanctions/{sanction_id}": frozenset({"DELETE", "GET"}),
    # GET is the Api's: the seasons of a ladder, under the API key.
    "/v1/ladders/{ladder}/seasons": frozenset({"POST"}),
}
