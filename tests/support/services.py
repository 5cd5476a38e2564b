"""The service as production builds it, over any storage, with the test's clock."""

import random
from collections.abc import Callable
from datetime import datetime

from ratings.rules import DEFAULT_LADDERS
from ratings.service.ports import Storage
from ratings.service.usecases import RatingService


def rating_service(storage: Storage, clock: Callable[[], datetime]) -> RatingService:
    """The default ladders over `storage`, on `clock`; retries jittered by a seeded random
    and never slept."""
    return RatingService(
        storage,
        DEFAULT_LADDERS,
        clock=clock,
        sleep=lambda seconds: None,
        rng=random.Random(20261129),
    )
