"""Award a podium: pay a public tournament's podium bonuses once per tournament id."""

from ratings.rules import InvalidInput, Ladder
from ratings.service.declared import ABSENT
from ratings.service.errors import AlreadyStored, TournamentConflict, WriteConflict
from ratings.service.ladders import Ladders
from ratings.service.player import Player
from ratings.service.player_reads import players_of
from ratings.service.ports import ResultsView, Writes
from ratings.service.requests import PodiumInput, parse_podium
from ratings.service.results import Award, PodiumBonusEvent, Submitted, Tournament, json_of
from ratings.service.retries import Retrier
from ratings.service.settings import Clock, Settings
from ratings.service.stored import PODIUM_EVENT, PlayerEvent, StoredTournament


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
        awards: list[Award] = []
        awarded: list[Player] = []
        events: list[PlayerEvent] = []
        for (place, submitted_id), player in zip(podium.podium, players, strict=True):
            bonus = ladder.podium_bonus(place) if podium.public else 0
            after = player.awarded(bonus)
            awards.append(
                Award(
                    place=place,
                    player_id=player.player_id,
                    delta=bonus,
                    rating_after=after.rating,
                    submitted_id=submitted_id if submitted_id != player.player_id else ABSENT,
                )
            )
            if bonus == 0:
                continue
            awarded.append(after)
            bonus_event = PodiumBonusEvent(
                type=PODIUM_EVENT,
                tournament_id=podium.tournament_id,
                place=place,
                at=podium.finished_at,
                delta=bonus,
                rating_after=after.rating,
            )
            events.append(
                PlayerEvent.of_podium(
                    player,
                    tournament_id=podium.tournament_id,
                    finished_at=podium.finished_at,
                    body=json_of(bonus_event),
                    kept_for=self.settings.history_retention,
                )
            )
        result = Tournament(
            tournament_id=podium.tournament_id,
            ladder=ladder.ladder_id,
            status="awarded",
            public=podium.public,
            finished_at=podium.finished_at,
            awards=awards,
        )
        answer = json_of(result)
        tournament = StoredTournament(
            ladder=ladder.ladder_id,
            tournament_id=podium.tournament_id,
            fingerprint=podium.fingerprint,
            result=answer,
        )
        try:
            self.writes.commit_tournament(tournament, awarded, events)
        except AlreadyStored:
            existing = self.results.get_tournament(ladder.ladder_id, podium.tournament_id)
            if existing is None:
                raise WriteConflict(podium.tournament_id) from None
            return _replay(existing, podium)
        return Submitted(answer, created=True)


def _replay(stored: StoredTournament, podium: PodiumInput) -> Submitted:
    if stored.fingerprint != podium.fingerprint:
        raise TournamentConflict(
            f"tournament_id {podium.tournament_id!r} was already awarded with another podium"
        )
    return Submitted(stored.result, created=False)
