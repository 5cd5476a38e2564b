"""RefreshStandings: on a schedule, counts each ladder's leaderboard into a rating histogram.

The histogram is what ranks beyond the exact limit are estimated from (api.md, "Read a
player"). A run reads the leaderboard index of every ladder and stores one histogram item per
ladder; it never writes a player state, so games are rated undisturbed while it runs.
"""

from ratings.lambda_support import invocation

invocation.pause_collector()  # before the imports below: see ratings.lambda_support.invocation

# isort: split

from typing import Any

from aws_lambda_powertools import Logger
from aws_lambda_powertools.utilities.typing import LambdaContext

from ratings import wiring
from ratings.lambda_support import invocation
from ratings.service.results import RefreshedLadders, json_of

logger = Logger()


@logger.inject_lambda_context(correlation_id_path="id", clear_state=True)
def lambda_handler(event: dict[str, Any], context: LambdaContext) -> dict[str, Any]:
    try:
        service = wiring.service()
        refreshed = []
        # A slow store fails the run, in time: the next run redoes it.
        with invocation.deadline(context):
            for ladder in wiring.ladders():
                summary = service.refresh_standings(ladder)
                logger.info("standings refreshed", extra=summary)
                refreshed.append(summary)
        return json_of(RefreshedLadders(refreshed))
    finally:
        invocation.resume_collector()  # a cold start's paused collector, once answered
