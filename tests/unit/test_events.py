"""The events made of the table's stream records (ratings.storage.dynamodb.stream) and what
each carries (ratings.service.events): one event per stored change a backend may want to hear
of, none for anything else. The records are built as the stream carries them: each item
serialized the way the table stores it."""

import json
from datetime import UTC, datetime
from typing import Any

import pytest

from ratings.declare.answers import JsonObject
from ratings.service import events
from ratings.service.events import Envelope, entry_of, event_id
from ratings.service.player import Player
from ratings.service.sanction_records import SANCTION, RefundDecision, sanction_job_id
from ratings.service.stored import (
    DONE,
    ERASURE,
    PENDING,
    Job,
    Progress,
    StoredGame,
    StoredTournament,
)
from ratings.storage.dynamodb.job_layout import job_item
from ratings.storage.dynamodb.layout import (
    STANDINGS_SK,
    RatingsItem,
    StandingsItem,
    game_item,
    standings_key,
    state_item_of,
    tournament_item,
)
from ratings.storage.dynamodb.sanction_layout import (
    LIFT_SK,
    LiftItem,
    decision_item,
    sanction_key,
)
from ratings.storage.dynamodb.stream import envelopes_of

AT = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)
LATER = datetime(2026, 3, 1, 12, 5, tzinfo=UTC)
KEPT_UNTIL = datetime(2026, 4, 1, tzinfo=UTC)
#: What every event's detail has, besides its type's own fields.
COMMON = {"event_id", "type", "ladder", "at", "sequences"}
GAME_RESULT: JsonObject = {
    "game_id": "g-1",
    "ranked": True,
    "players": [
        {"id": "alice", "rating_before": 1500, "rating_after": 1516, "delta": 16},
        {"id": "bob", "rating_before": 1500, "rating_after": 1484, "delta": -16},
    ],
}
SEASON: JsonObject = {"season_id": "spring", "starts_at": "2026-03-01T12:00:00.000Z"}


class Lookups:
    """What the handler reads through the service, answered from fixed values."""

    def __init__(
        self,
        players: dict[tuple[str, str], str] | None = None,
        seasons: dict[tuple[str, str], tuple[JsonObject, str | None]] | None = None,
    ) -> None:
        self.players = players or {}
        self.seasons = seasons or {}

    def sanctioned_player(self, ladder: str, sanction_id: str) -> str | None:
        return self.players.get((ladder, sanction_id))

    def season(self, ladder: str, season_id: str) -> tuple[JsonObject, str | None] | None:
        return self.seasons.get((ladder, season_id))


NO_LOOKUPS = Lookups()


def record(
    new: RatingsItem | None,
    old: RatingsItem | None = None,
    *,
    change_id: str = "change-1",
    name: str | None = None,
) -> dict[str, Any]:
    """A stream record (NEW_AND_OLD_IMAGES) as Lambda hands it to the function."""
    change: dict[str, Any] = {
        "ApproximateCreationDateTime": AT.timestamp(),
        "SequenceNumber": "1000",
        "StreamViewType": "NEW_AND_OLD_IMAGES",
    }
    if new is not None:
        change["NewImage"] = new.serialize()
    if old is not None:
        change["OldImage"] = old.serialize()
    event_name = name or ("INSERT" if old is None else "MODIFY" if new is not None else "REMOVE")
    return {"eventID": change_id, "eventName": event_name, "dynamodb": change}


def only(made: list[Envelope]) -> Envelope:
    (envelope,) = made
    return envelope


def stored_game(sequences: tuple[int, ...] = (4, 9), **result: Any) -> StoredGame:
    document = {**GAME_RESULT, **result}
    return StoredGame("backgammon", "g-1", "fp", document, KEPT_UNTIL, 0, sequences)


def sanction_job(status: str, completed_at: datetime | None = None) -> Job:
    details = {"ladder": "backgammon", "sanction_id": "s-1", "player_id": "mallory"}
    job_id = sanction_job_id("backgammon", "s-1")
    return Job(SANCTION, job_id, status, AT, Progress("refunds"), details, 1, completed_at)


def erasure_job(status: str, details: JsonObject) -> Job:
    completed = LATER if status == DONE else None
    return Job(ERASURE, "hash-of-dave", status, AT, Progress("games"), details, 3, completed)


def standings(board: str) -> StandingsItem:
    return StandingsItem(
        standings_key(board), STANDINGS_SK, counts="[]", players=0, refreshed_at="x"
    )


# One event per change -------------------------------------------------------------------------


def test_a_game_stored_is_rated_with_its_stored_result_and_each_players_sequence() -> None:
    game = only(envelopes_of(record(game_item(stored_game())), NO_LOOKUPS))

    assert (game.type, game.ladder, game.at) == (events.GAME_RATED, "backgammon", AT)
    assert game.sequences == {"alice": 4, "bob": 9}
    detail = game.detail()
    assert set(detail) == COMMON | {"game"}
    assert detail["game"] == GAME_RESULT
    assert detail["at"] == "2026-03-01T12:00:00.000Z"
    assert detail["event_id"] == event_id("change-1", events.GAME_RATED)


def test_an_unranked_game_moves_no_sequence() -> None:
    unranked = stored_game((), ranked=False)

    game = only(envelopes_of(record(game_item(unranked)), NO_LOOKUPS))

    assert game.sequences == {}
    assert game.fields == {"game": {**GAME_RESULT, "ranked": False}}


def test_a_game_rewritten_or_expired_makes_no_event() -> None:
    """An erasure's rewrite of the result (a MODIFY) and TTL's deletion (a REMOVE)."""
    before = game_item(stored_game())
    rewritten = game_item(stored_game()._replace(revision=1, result={"game_id": "g-1"}))

    assert envelopes_of(record(rewritten, before), NO_LOOKUPS) == []
    assert envelopes_of(record(None, before), NO_LOOKUPS) == []


def test_a_game_stored_over_an_expired_record_of_its_id_is_rated() -> None:
    """A game_id used again after its record's retention, before TTL deleted the record: the
    new game is a MODIFY of the item, told from an erasure's rewrite by having no revision."""
    expired = game_item(stored_game(result_of="the first game")._replace(revision=2))
    again = game_item(stored_game((1, 1), result_of="the second game"))

    rated = only(envelopes_of(record(again, expired), NO_LOOKUPS))

    assert rated.type == events.GAME_RATED
    assert rated.fields["game"]["result_of"] == "the second game"
    assert rated.sequences == {"alice": 1, "bob": 1}


def test_a_podium_is_awarded_with_the_stored_tournament_and_the_paid_players_sequences() -> None:
    result = {
        "tournament_id": "t-1",
        "awards": [
            {"player_id": "alice", "place": 1, "bonus": 10},
            {"player_id": "bob", "place": 2, "bonus": 0},
        ],
    }
    tournament = StoredTournament("backgammon", "t-1", "fp", result, 0, (12, None))

    podium = only(envelopes_of(record(tournament_item(tournament)), NO_LOOKUPS))

    assert (podium.type, podium.ladder) == (events.PODIUM_AWARDED, "backgammon")
    assert podium.sequences == {"alice": 12}  # bob was paid nothing: no change of his
    assert podium.fields == {"tournament": result}
    assert set(podium.detail()) == COMMON | {"tournament"}


def test_a_paid_refund_names_the_sanction_victim_game_delta_and_rating() -> None:
    decision = RefundDecision(
        "backgammon", "s-1", "g-7", AT, "vic", 14, LATER, rating_after=1514, sequence=6
    )

    refund = only(envelopes_of(record(decision_item(decision)), NO_LOOKUPS))

    assert (refund.type, refund.ladder, refund.at) == (events.REFUND_PAID, "backgammon", LATER)
    assert refund.sequences == {"vic": 6}
    assert refund.fields == {
        "sanction_id": "s-1",
        "player_id": "vic",
        "game_id": "g-7",
        "delta": 14,
        "rating_after": 1514,
    }
    assert set(refund.detail()) == COMMON | set(refund.fields)


def test_a_withheld_refund_makes_no_event() -> None:
    withheld = RefundDecision("backgammon", "s-1", "g-7", AT, None, 0, LATER, withheld="erased")

    assert envelopes_of(record(decision_item(withheld)), NO_LOOKUPS) == []


def test_a_sanction_stored_is_imposed_and_completed_when_its_record_turns_done() -> None:
    pending, done = sanction_job(PENDING), sanction_job(DONE, LATER)

    imposed = only(envelopes_of(record(job_item(pending)), NO_LOOKUPS))
    completed = only(
        envelopes_of(record(job_item(done), job_item(pending), change_id="c-2"), NO_LOOKUPS)
    )
    again = record(job_item(done), job_item(done), change_id="c-3")

    assert (imposed.type, imposed.at) == (events.PLAYER_SANCTIONED, AT)
    assert (completed.type, completed.at) == (events.SANCTION_COMPLETED, LATER)
    for envelope in (imposed, completed):
        assert envelope.ladder == "backgammon"
        assert envelope.sequences == {}
        assert envelope.fields == {"sanction_id": "s-1", "player_id": "mallory"}
        assert set(envelope.detail()) == COMMON | {"sanction_id", "player_id"}
    assert envelopes_of(again, NO_LOOKUPS) == []  # done already: a later save of the record


def test_a_sanction_with_no_refunds_to_pay_is_imposed_and_completed_at_once() -> None:
    made = envelopes_of(record(job_item(sanction_job(DONE, AT))), NO_LOOKUPS)

    assert [envelope.type for envelope in made] == [
        events.PLAYER_SANCTIONED,
        events.SANCTION_COMPLETED,
    ]
    assert len({envelope.event_id for envelope in made}) == 2


def test_a_lift_names_the_sanctioned_player_it_reads() -> None:
    lift = LiftItem(
        sanction_key("backgammon", "s-1"), LIFT_SK, lifted_at="2026-03-01T12:05:00.000Z"
    )
    lookups = Lookups(players={("backgammon", "s-1"): "mallory"})

    lifted = only(envelopes_of(record(lift), lookups))

    assert (lifted.type, lifted.ladder, lifted.at) == (events.SANCTION_LIFTED, "backgammon", LATER)
    assert lifted.fields == {"sanction_id": "s-1", "player_id": "mallory"}
    # A lift of a sanction no longer stored names nobody: no event.
    assert envelopes_of(record(lift), NO_LOOKUPS) == []


def test_a_season_starts_with_its_standings_first_refresh() -> None:
    lookups = Lookups(seasons={("backgammon", "spring"): (SEASON, "all-time")})
    board = standings("backgammon@spring")

    started = only(envelopes_of(record(board), lookups))

    assert (started.type, started.ladder, started.at) == (
        events.SEASON_STARTED,
        "backgammon",
        AT,
    )
    assert started.fields == {"season": SEASON, "previous_season_id": "all-time"}
    assert set(started.detail()) == COMMON | {"season", "previous_season_id"}
    # A later refresh (a MODIFY), the all-time board, a season not found: none.
    assert envelopes_of(record(board, board), lookups) == []
    assert envelopes_of(record(standings("backgammon")), lookups) == []
    assert envelopes_of(record(standings("backgammon@autumn")), lookups) == []


def test_an_erasure_done_names_the_player_from_the_record_before() -> None:
    before = job_item(erasure_job(PENDING, {"player_id": "dave", "pseudonym": "erased-1"}))
    done = job_item(erasure_job(DONE, {}))

    erased = only(envelopes_of(record(done, before), NO_LOOKUPS))

    assert (erased.type, erased.ladder, erased.at) == (events.ERASURE_COMPLETED, None, LATER)
    assert erased.fields == {"player_id": "dave"}
    assert set(erased.detail()) == COMMON | {"player_id"}
    # Its requests and its steps (pending to pending) report nothing.
    assert envelopes_of(record(before), NO_LOOKUPS) == []
    assert envelopes_of(record(before, before), NO_LOOKUPS) == []


def test_a_state_makes_no_event() -> None:
    rated = Player("backgammon", "alice", 1500).rated(1516)

    assert envelopes_of(record(state_item_of(rated)), NO_LOOKUPS) == []


# Ids and entries ------------------------------------------------------------------------------


def test_an_event_id_is_the_same_for_the_same_record_and_differs_for_another() -> None:
    item = game_item(stored_game())

    first = only(envelopes_of(record(item, change_id="c-1"), NO_LOOKUPS))
    again = only(envelopes_of(record(item, change_id="c-1"), NO_LOOKUPS))
    other = only(envelopes_of(record(item, change_id="c-2"), NO_LOOKUPS))

    assert first.event_id == again.event_id
    assert first.event_id != other.event_id


def test_an_entry_is_the_envelope_on_the_bus() -> None:
    game = only(envelopes_of(record(game_item(stored_game())), NO_LOOKUPS))

    entry = entry_of(game, "ratings-events")

    assert entry["Source"] == events.SOURCE
    assert entry["DetailType"] == events.GAME_RATED
    assert entry["EventBusName"] == "ratings-events"
    assert entry["Time"] == AT
    assert json.loads(entry["Detail"]) == game.detail()


@pytest.mark.parametrize("event_type", events.TYPES)
def test_each_type_has_its_own_id_for_one_change(event_type: str) -> None:
    others = [event_id("c-1", other) for other in events.TYPES if other != event_type]

    assert event_id("c-1", event_type) not in others
