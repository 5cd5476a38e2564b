"""Award a podium: pay a public tournament's podium bonuses once per tournament id."""

from typing import NamedTuple

from ratings.declare.kinds import ABSENT
from ratings.rules import InvalidInput, Ladder
from ratings.service.context import Context
from ratings.service.errors import TournamentConflict
from ratings.service.once import answer_again, commit_once
from ratings.service.player import Player
from ratings.service.player_reads import players_of, refuse_erasing
from ratings.service.ports import ResultsView, Writes
from ratings.service.requests import PodiumInput, parse_podium
from ratings.service.results import (
    PODIUM_EVENT,
    Award,
    PodiumBonusEvent,
    Submitted,
    Tournament,
    json_of,
)
from ratings.service.retries import Retrier
from ratings.service.stored import PlayerEvent, StoredTournament


class AwardPodium(NamedTuple):
    """Pays a podium's bonuses: reads and commits through `writes`, answers a repeat
    from `results`, redoes a contended attempt through `retrier`."""

    context: Context
    writes: Writes
    results: ResultsView
    retrier: Retrier

    def run(self, body: object) -> Submitted:
        """Pay a tournament's podium bonuses once per tournament id (public ones only)."""
        podium = parse_podium(body, self.context.now())
        ladder = self.context.ladder(podium.ladder)
        return self.retrier.run("podium", lambda: self._attempt(ladder, podium))

    def _attempt(self, ladder: Ladder, podium: PodiumInput) -> Submitted:
        ids = [player_id for _place, player_id in podium.podium]
        reads = self.writes.read_for_podium(ladder.ladder_id, podium.tournament_id, ids)
        conflict = TournamentConflict(
            f"tournament_id {podium.tournament_id!r} was already awarded with another podium"
        )
        if reads.tournament is not None:
            return answer_again(reads.tournament, podium.fingerprint, conflict)
        resolved = [reads.links.get(player_id, player_id) for player_id in ids]
        if len(set(resolved)) != len(resolved):
            raise InvalidInput("podium", "podium players must be different people (after linking)")
        players = players_of(self.writes, ladder, resolved, reads.links, reads.states)
        refuse_erasing(players)
        awards: list[Award] = []
        awarded: list[Player] = []
        unpaid: list[Player] = []
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
                unpaid.append(player)
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
                PlayerEvent.of(player, bonus_event, self.context.settings.history_retention)
            )
        result = Tournament(
            tournament_id=podium.tournament_id,
            ladder=ladder.ladder_id,
            status="awarded",
            public=podium.public,
            finished_at=podium.finished_at,
            awards=awards,
        )
        tournament = StoredTournament(
            ladder=ladder.ladder_id,
            tournament_id=podium.tournament_id,
            fingerprint=podium.fingerprint,
            result=json_of(result),
        )
        # The award names every podium player, paid or not: each gets a pointer to it (an
        # erasure finds their awards by it), and the commit holds only over every state read.
        podium_ids = [player.player_id for player in players]
        return commit_once(
            tournament,
            conflict,
            lambda: self.writes.commit_tournament(tournament, awarded, events, unpaid, podium_ids),
            lambda: self.results.get_tournament(tournament.ladder, tournament.tournament_id),
        )
