"""PublishEvents: the table's stream in, the service's events out on its EventBridge bus.

Lambda's event source mapping reads the table's stream (only the item kinds that may make an
event: `ratings.storage.dynamodb.stream.FILTER_KINDS`) and invokes this function with each
batch, in the stream's order. The function makes each record's events and puts them on the
bus (`ratings.lambda_support.publishing`). It answers with the first record it could not
finish (ReportBatchItemFailures): Lambda then invokes it again from that record on, so a
record is never skipped; a batch that fails or times out as a whole comes again whole.
After the mapping's retries the records go to the events DLQ as their stream positions, with
an alarm (docs/reliability.md, "Events"). Events may come more than once, each time with the
same `event_id`; never for a change that was not stored.
"""

from ratings.lambda_support import invocation

invocation.pause_collector()  # before the imports below: see ratings.lambda_support.invocation

# isort: split

from datetime import timedelta
from typing import Any

from aws_lambda_powertools import Logger, Metrics
from aws_lambda_powertools.metrics import MetricUnit
from aws_lambda_powertools.utilities.typing import LambdaContext

from ratings import wiring
from ratings.declare.answers import JsonObject, parse_utc_millis
from ratings.lambda_support.publishing import Publisher
from ratings.service.errors import NotFound
from ratings.service.events import Envelope
from ratings.storage.dynamodb.stream import envelopes_of

logger = Logger()
metrics = Metrics()


class ServiceLookups:
    """What an event needs beyond its record, read through the service."""

    def sanctioned_player(self, ladder: str, sanction_id: str) -> str | None:
        view = wiring.service().storage.sanctions.read_sanction(ladder, sanction_id, None, 1)
        return None if view.sanction is None else view.sanction.player_id

    def season(self, ladder_id: str, season_id: str) -> tuple[JsonObject, str | None] | None:
        service = wiring.service()
        try:
            season = service.get_season(ladder_id, season_id)
        except NotFound:
            return None
        starts_at = season.get("starts_at")
        if not isinstance(starts_at, str):
            return season, None
        before = parse_utc_millis(starts_at) - timedelta(milliseconds=1)
        ladder = service.context.ladder(ladder_id)
        return season, service.context.season(ladder, before).season_id


LOOKUPS = ServiceLookups()


@metrics.log_metrics
@logger.inject_lambda_context(clear_state=True)
def lambda_handler(event: dict[str, Any], context: LambdaContext) -> dict[str, Any]:
    try:
        records = event.get("Records") or []
        with invocation.deadline(context):
            return {"batchItemFailures": publish(records)}
    finally:
        invocation.resume_collector()  # a cold start's paused collector, once answered


def publish(records: list[dict[str, Any]]) -> list[dict[str, str]]:
    """Publish the events of `records`, in order; the first record not done, as the batch
    item failure Lambda resumes from (none: all done)."""
    made: list[Envelope] = []
    owners: list[int] = []
    stopped_at: int | None = None
    for position, record in enumerate(records):
        try:
            envelopes = envelopes_of(record, LOOKUPS)
        except Exception:  # a read that failed (throttled, out of time): from here, again
            logger.exception("could not make a record's events", extra=_where(record))
            stopped_at = position
            break
        made.extend(envelopes)
        owners.extend([position] * len(envelopes))
    publisher = Publisher(wiring.events_client(), _bus())
    undelivered = publisher.publish(made) if made else []
    if undelivered:
        first = owners[undelivered[0]]
        stopped_at = first if stopped_at is None else min(stopped_at, first)
        extra = {"undelivered": len(undelivered), **_where(records[first])}
        logger.warning("events not put on the bus", extra=extra)
    delivered = len(made) - len(undelivered)
    metrics.add_metric("EventsPublished", MetricUnit.Count, delivered)
    if publisher.retried:
        metrics.add_metric("EventsRetried", MetricUnit.Count, publisher.retried)
    if stopped_at is None:
        return []
    return [{"itemIdentifier": _sequence_number(records[stopped_at])}]


def _bus() -> str:
    bus = wiring.config().event_bus_name
    if not bus:
        raise RuntimeError("RATINGS_EVENT_BUS_NAME is not set: the template sets it")
    return bus


def _sequence_number(record: dict[str, Any]) -> str:
    return str((record.get("dynamodb") or {}).get("SequenceNumber", ""))


def _where(record: dict[str, Any]) -> dict[str, Any]:
    return {"event_id": record.get("eventID"), "sequence_number": _sequence_number(record)}
