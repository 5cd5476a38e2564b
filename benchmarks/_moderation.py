"""What the moderation benchmarks (erasure, sanction_refunds) share: a service at the
benchmarks' fixed time whose jobs queue keeps what is sent, so that a benchmark works each
job itself, as the ModerationWorker would."""

from ratings.rules import DEFAULT_LADDERS
from ratings.service.facade import RatingService
from ratings.service.ports import JobQueue, Storage
from ratings.service.stored import JobMessage
from ratings.service.unit_of_work import Retrier

from .requests_per_game import NOW


class KeptQueue(JobQueue):
    """The jobs queue as the benchmarks need it: messages kept, the runner fed by hand."""

    def __init__(self) -> None:
        self.sent: list[JobMessage] = []

    def send(self, message: JobMessage) -> None:
        self.sent.append(message)


def moderating_service(storage: Storage) -> tuple[RatingService, KeptQueue]:
    """A service over `storage` at NOW, never sleeping between retries, and its jobs queue."""
    queue = KeptQueue()
    service = RatingService(
        storage,
        DEFAULT_LADDERS,
        clock=lambda: NOW,
        job_queue=queue,
        retrier=Retrier(sleep=lambda _: None),
    )
    return service, queue
