"""The erasure port on DynamoDB: what erasing a player reads (the id's links, states and
partitions) and writes (its job record, guarded against linking; the steps' transactions).
The items it touches are described in docs/table-layout.md ("Erasing a player").
"""

from collections.abc import Sequence

from pynamodb.expressions.condition import Condition

from ratings.service.errors import AlreadyLinked, AlreadyStored, WriteConflict
from ratings.service.ports import ErasureWrites
from ratings.service.stored import Job
from ratings.storage.dynamodb.commits import Tx, transact
from ratings.storage.dynamodb.layout import (
    ACCOUNT_SK,
    ANON_SK,
    STATE_SK,
    BoundTable,
    JobItem,
    LinkItem,
    job_item,
    link_key,
    player_key,
)


class DynamoErasures(ErasureWrites):
    def __init__(self, table: BoundTable) -> None:
        self._table = table

    def holds_player(self, player_id: str, ladders: Sequence[str]) -> bool:
        keys = [(link_key(player_id), ANON_SK), (link_key(player_id), ACCOUNT_SK)]
        keys += [(player_key(ladder, player_id), STATE_SK) for ladder in ladders]
        if any(True for _item in self._table.batch_get(keys)):
            return True
        # No state: games that were all unranked, or podium awards, may still be stored.
        return any(
            self._table.query(player_key(ladder, player_id), consistent_read=True, limit=1).get(
                "Items"
            )
            for ladder in ladders
        )

    def request_erasure(self, job: Job, player_id: str) -> None:
        condition: Condition
        on_fail: type[Exception]
        if job.progress_version == 1:
            condition, on_fail = JobItem.pk.does_not_exist(), AlreadyStored
        else:
            condition = JobItem.progress_version == job.progress_version - 1
            on_fail = WriteConflict
        unlinked = LinkItem(link_key(player_id), ANON_SK, other_id="")
        transact(
            self._table,
            [
                Tx(job_item(job), condition, on_fail),
                Tx(unlinked, LinkItem.pk.does_not_exist(), AlreadyLinked, check_only=True),
            ],
        )
