"""The season store on DynamoDB: a ladder's operator-started seasons (one item, saved over its
version) and a player's frozen standings (items of their partition, read with one Query).
docs/table-layout.md describes the items."""

from collections.abc import Mapping, Sequence

from pynamodb.exceptions import PutError

from ratings.service.errors import WriteConflict
from ratings.service.player import FrozenStanding
from ratings.service.ports import SeasonStore
from ratings.service.seasons import SeasonStarts
from ratings.storage.dynamodb.layout import (
    SEASON_SK_PREFIX,
    SEASONS_SK,
    RatingsItem,
    SeasonStartsItem,
    StandingItem,
    player_key,
    season_starts_item,
    season_starts_of,
    seasons_key,
    standing_item,
    standing_of,
)
from ratings.storage.dynamodb.table import BoundTable, response_code, transient_as_storage_error


class DynamoSeasons(SeasonStore):
    def __init__(self, table: BoundTable) -> None:
        self._table = table

    def read_starts(self, ladder: str) -> SeasonStarts:
        item = self._table.get(seasons_key(ladder), SEASONS_SK)
        return season_starts_of(item) if isinstance(item, SeasonStartsItem) else SeasonStarts()

    def read_starts_of(self, ladders: Sequence[str]) -> Mapping[str, SeasonStarts]:
        found = dict.fromkeys(ladders, SeasonStarts())
        keys = [(seasons_key(ladder), SEASONS_SK) for ladder in ladders]
        for item in self._table.batch_get(keys):
            if isinstance(item, SeasonStartsItem):
                found[item.pk.removeprefix(seasons_key(""))] = season_starts_of(item)
        return found

    def save_starts(self, ladder: str, starts: SeasonStarts) -> None:
        item = season_starts_item(ladder, starts)
        previous = starts.version - 1
        condition = (
            SeasonStartsItem.pk.does_not_exist()
            if previous == 0
            else SeasonStartsItem.version == previous
        )
        with transient_as_storage_error():
            try:
                self._table.put(item, condition=condition)
            except PutError as error:
                if response_code(error) == "ConditionalCheckFailedException":
                    raise WriteConflict(ladder) from error
                raise

    def hide_standings(self, ladder: str, player_id: str, hidden: bool) -> int:
        changed = 0
        for standing in self.standings_of(ladder, player_id):
            if standing.hidden == hidden:
                continue
            item = standing_item(standing._replace(hidden=hidden), self._table.shards)
            with transient_as_storage_error():
                try:  # only while it is there (an erasure may have renamed it meanwhile)
                    self._table.put(item, condition=StandingItem.pk.exists())
                except PutError as error:
                    if response_code(error) != "ConditionalCheckFailedException":
                        raise
                    continue
            changed += 1
        return changed

    def standings_of(self, ladder: str, player_id: str) -> Sequence[FrozenStanding]:
        standings = []
        for response in self._table.pages(
            player_key(ladder, player_id),
            range_key_condition=RatingsItem.sk.startswith(SEASON_SK_PREFIX),
            consistent_read=True,
        ):
            for raw in response.get("Items", []):
                item = RatingsItem.from_raw_data(raw)
                if isinstance(item, StandingItem):
                    standings.append(standing_of(item))
        return standings
