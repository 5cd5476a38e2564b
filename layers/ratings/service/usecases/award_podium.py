"""Award a podium: pay a public tournament's podium bonuses once per tournament id."""

from ratings.rules import InvalidInput, Ladder
from ratings.service import documents
from ratings.service.errors import AlreadyStored, TournamentConflict, WriteConflict
from ratings.service.inputs import PodiumInput, parse_podium
from ratings.service.ladders import Ladders
from ratings.service.player import Player
from ratings.service.player_reads import players_of, refuse_erasing
from ratings.service.ports import ResultsView, Writes
from ratings.service.results import Submitted
from ratings.service.retries import Retrier
from ratings.service.settings import Clock, Settings
from ratings.service.stored import JsonObject, PlayerEvent, StoredTournament
from ratings.timestamps import format_utc_millis


class AwardPodium:
    def __init__(
        self,
        ladders: Ladders,
        writes: Writes,
        results: ResultsView,
        retrier: Retrier,
        clock: Clock,
        settings: Settings,
    ) -> None:
        self.ladders = ladders
        self.writes = writes
        self.results = results
        self.retrier = retrier
        self.clock = clock
        self.settings = settings

    def __call__(self, body: object) -> Submitted:
        """Pay a tournament's podium bonuses once per tournament id (public ones only)."""
        podium = parse_podium(body, self.clock())
        ladder = self.ladders.get(podium.ladder)
        return self.retrier.run("podium", lambda: self._attempt(ladder, podium))

    def _attempt(self, ladder: Ladder, podium: PodiumInput) -> Submitted:
        ids = [player_id for _place, player_id in podium.podium]
        reads = self.writes.read_for_podium(ladder.ladder_id, podium.tournament_id, ids)
        if reads.tournament is not None:
            return _replay(reads.tournament, podium)
        resolved = [reads.links.get(player_id, player_id) for player_id in ids]
        if len(set(resolved)) != len(resolved):
            raise InvalidInput("podium", "podium players must be different people (after linking)")
        players = players_of(self.writes, ladder, resolved, reads.links, reads.states)
        refuse_erasing(players)
        awards: list[JsonObject] = []
        awarded: list[Player] = []
        unpaid: list[Player] = []
        events: list[PlayerEvent] = []
        at = format_utc_millis(podium.finished_at)
        for (place, submitted_id), player in zip(podium.podium, players, strict=True):
            bonus = ladder.podium_bonus(place) if podium.public else 0
            award: JsonObject = {
                "place": place,
                "player_id": player.player_id,
                "delta": bonus,
                "rating_after": player.rating + bonus,
            }
            if submitted_id != player.player_id:
                award["submitted_id"] = submitted_id
            awards.append(award)
            if bonus == 0:
                unpaid.append(player)
                continue
            after = player.awarded(bonus)
            awarded.append(after)
            events.append(
                PlayerEvent.of_podium(
                    player,
                    tournament_id=podium.tournament_id,
                    finished_at=podium.finished_at,
                    body=documents.podium_event(
                        podium.tournament_id, place, at, bonus, after.rating
                    ),
                    kept_for=self.settings.history_retention,
                )
            )
        result: JsonObject = {
            "tournament_id": podium.tournament_id,
            "ladder": ladder.ladder_id,
            "status": "awarded",
            "public": podium.public,
            "finished_at": at,
            "awards": awards,
        }
        tournament = StoredTournament(
            ladder=ladder.ladder_id,
            tournament_id=podium.tournament_id,
            fingerprint=podium.fingerprint,
            result=result,
        )
        # The award names every podium player, paid or not: each gets a pointer to it (an
        # erasure finds their awards by it), and the commit holds only over every state read.
        podium_ids = [player.player_id for player in players]
        try:
            self.writes.commit_tournament(tournament, awarded, events, unpaid, podium_ids)
        except AlreadyStored:
            existing = self.results.get_tournament(ladder.ladder_id, podium.tournament_id)
            if existing is None:
                raise WriteConflict(podium.tournament_id) from None
            return _replay(existing, podium)
        return Submitted(result, created=True)


def _replay(stored: StoredTournament, podium: PodiumInput) -> Submitted:
    if stored.fingerprint != podium.fingerprint:
        raise TournamentConflict(
            f"tournament_id {podium.tournament_id!r} was already awarded with another podium"
        )
    return Submitted(stored.result, created=False)
