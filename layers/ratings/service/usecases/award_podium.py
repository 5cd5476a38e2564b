"""Award a podium: pay a public tournament's podium bonuses once per tournament id."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ratings.declare.kinds import ABSENT
from ratings.rules import InvalidInput, Ladder
from ratings.service.errors import TournamentConflict
from ratings.service.game_result import Submitted, answer_again, history_line
from ratings.service.player import Player, refuse_erasing
from ratings.service.requests import PodiumInput, parse_podium
from ratings.service.results import PODIUM_EVENT, Award, PodiumBonusEvent, Tournament, json_of
from ratings.service.stored import PlayerEvent, StoredTournament
from ratings.service.unit_of_work import UnitOfWork, players_of

if TYPE_CHECKING:
    from ratings.service.facade import Context


def award_podium(uow: UnitOfWork, context: Context, body: object) -> Submitted:
    """Pay a tournament's podium bonuses once per tournament id (public ones only)."""
    podium = parse_podium(body, context.now())
    ladder = context.ladder(podium.ladder)
    attempts = uow.attempts("podium")
    while True:
        with attempts:
            return _award_once(uow, context, ladder, podium)


def _award_once(
    uow: UnitOfWork, context: Context, ladder: Ladder, podium: PodiumInput
) -> Submitted:
    """One attempt: the stored answer of a tournament met again, else the awards
    committed over every podium player's state read."""
    ids = [player_id for _place, player_id in podium.podium]
    reads = uow.read_for_podium(ladder.ladder_id, podium.tournament_id, ids)
    if reads.tournament is not None:
        return _again(reads.tournament, podium)
    resolved = [reads.links.get(player_id, player_id) for player_id in ids]
    if len(set(resolved)) != len(resolved):
        raise InvalidInput("podium", "podium players must be different people (after linking)")
    players = players_of(uow, ladder, resolved, reads.links, reads.states)
    refuse_erasing(players)
    # A podium of a season that has ended pays nothing (its finished_at is before the start
    # of the season now running, or of a later one a state is already in).
    season = uow.season_of(ladder, players, context.now())
    ended = season.starts_at is not None and podium.finished_at < season.starts_at
    awards: list[Award] = []
    awarded: list[Player] = []
    sequences: list[int | None] = []
    unpaid: list[Player] = []
    events: list[PlayerEvent] = []
    for (place, submitted_id), player in zip(podium.podium, players, strict=True):
        bonus = ladder.podium_bonus(place) if podium.public and not ended else 0
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
            sequences.append(None)
            continue
        awarded.append(after)
        sequences.append(after.sequence)
        bonus_event = PodiumBonusEvent(
            type=PODIUM_EVENT,
            tournament_id=podium.tournament_id,
            place=place,
            at=podium.finished_at,
            delta=bonus,
            rating_after=after.rating,
        )
        events.append(history_line(player, bonus_event, context.settings.history_retention))
    result = Tournament(
        tournament_id=podium.tournament_id,
        ladder=ladder.ladder_id,
        status="season_ended" if ended else "awarded",
        public=podium.public,
        finished_at=podium.finished_at,
        awards=awards,
    )
    tournament = StoredTournament(
        ladder=ladder.ladder_id,
        tournament_id=podium.tournament_id,
        fingerprint=podium.fingerprint,
        result=json_of(result),
        sequences=tuple(sequences) if awarded else (),
    )
    # The award names every podium player, paid or not: each gets a pointer to it (an
    # erasure finds their awards by it), and the commit holds only over every state read.
    podium_ids = [player.player_id for player in players]
    existing = uow.commit_tournament(tournament, awarded, events, unpaid, podium_ids)
    if existing is not None:  # stored meanwhile: answered as a retry of it
        return _again(existing, podium)
    return Submitted(tournament.result, created=True)


def _again(stored: StoredTournament, podium: PodiumInput) -> Submitted:
    """A tournament id met again: its stored answer, or TournamentConflict for another
    podium."""
    answer = answer_again(stored, podium.fingerprint)
    if answer is None:
        raise TournamentConflict(
            f"tournament_id {podium.tournament_id!r} was already awarded with another podium"
        )
    return answer
