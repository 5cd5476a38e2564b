"""Tournaments: pay a public podium's bonuses once per tournament id, and read the awards."""

from ratings.rules import InvalidInput, Ladder
from ratings.service import documents
from ratings.service.base import ServiceBase, Submitted
from ratings.service.errors import NotFound, TournamentConflict
from ratings.service.inputs import PodiumInput, parse_podium, require_id
from ratings.service.ports import (
    AlreadyStored,
    JsonObject,
    PlayerEvent,
    StateWrite,
    StoredTournament,
    WriteConflict,
)
from ratings.timestamps import format_utc_millis


class PodiumUseCases(ServiceBase):
    def get_tournament(self, ladder_id: str, tournament_id: str) -> JsonObject:
        ladder = self.ladder(ladder_id)
        require_id(tournament_id, "tournament_id")
        stored = self._storage.get_tournament(ladder.ladder_id, tournament_id)
        if stored is None:
            raise NotFound(f"tournament {tournament_id!r} has not been awarded in {ladder_id!r}")
        return stored.result

    def award_podium(self, body: object) -> Submitted:
        """Pay a tournament's podium bonuses once per tournament id (public tournaments only)."""
        podium = parse_podium(body, self._clock())
        ladder = self.ladder(podium.ladder)
        return self._with_retries("podium", lambda: self._award_once(ladder, podium))

    def _award_once(self, ladder: Ladder, podium: PodiumInput) -> Submitted:
        ids = [player_id for _place, player_id in podium.podium]
        reads = self._storage.read_for_podium(ladder.ladder_id, podium.tournament_id, ids)
        if reads.tournament is not None:
            return self._replay_tournament(reads.tournament, podium)
        resolved = [reads.links.get(player_id, player_id) for player_id in ids]
        if len(set(resolved)) != len(resolved):
            raise InvalidInput("podium", "podium players must be different people (after linking)")
        records = self._records(ladder, resolved, reads.links, reads.states)
        awards: list[JsonObject] = []
        writes: list[StateWrite] = []
        events: list[PlayerEvent] = []
        at = format_utc_millis(podium.finished_at)
        for (place, submitted_id), record in zip(podium.podium, records, strict=True):
            bonus = ladder.podium_bonus(place) if podium.public else 0
            award: JsonObject = {
                "place": place,
                "player_id": record.player_id,
                "delta": bonus,
                "rating_after": record.rating + bonus,
            }
            if submitted_id != record.player_id:
                award["submitted_id"] = submitted_id
            awards.append(award)
            if bonus == 0:
                continue
            writes.append(
                StateWrite(
                    ladder.ladder_id,
                    record.player_id,
                    record.version,
                    record.rating + bonus,
                    record.ranked_games,
                    record.absorbed_id,
                )
            )
            event_body = documents.podium_event(
                podium.tournament_id, place, at, bonus, record.rating + bonus
            )
            events.append(
                PlayerEvent(
                    ladder.ladder_id,
                    record.player_id,
                    podium.finished_at,
                    "podium_bonus",
                    podium.tournament_id,
                    False,
                    event_body,
                    podium.finished_at + self._settings.history_retention,
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
            ladder.ladder_id, podium.tournament_id, podium.fingerprint, result
        )
        try:
            self._storage.commit_tournament(tournament, writes, events)
        except AlreadyStored:
            existing = self._storage.get_tournament(ladder.ladder_id, podium.tournament_id)
            if existing is None:
                raise WriteConflict(podium.tournament_id) from None
            return self._replay_tournament(existing, podium)
        return Submitted(result, created=True)

    @staticmethod
    def _replay_tournament(stored: StoredTournament, podium: PodiumInput) -> Submitted:
        if stored.fingerprint != podium.fingerprint:
            raise TournamentConflict(
                f"tournament_id {podium.tournament_id!r} was already awarded with another podium"
            )
        return Submitted(stored.result, created=False)
