"""`ratings calibrate`: the expected-score curve against results, and the divisor that fits.

The acceptance test: on backgammon-like simulated games whose true divisor is 1200, the fit
recovers 1200 within 10% (fixed seed). See docs/calibration.md for why the fit on ratings
runs a little high (rating noise) and how the noise-corrected figure takes that out.
"""

import json
import math
import random
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from support.cli import Ran, read_jsonl, run, write_jsonl

from ratings_cli.calibration import MAX_SLOPE, Observation, fit_divisor, log_likelihood
from ratings_cli.simulate import win_probability

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def calibrate(
    capsys: pytest.CaptureFixture[str], games: Path, *flags: object, plot: Path | None = None
) -> dict[str, Any]:
    where = ["--plot", plot] if plot else ["--no-plot"]
    ran = run(capsys, "calibrate", games, "--ladder", "backgammon", "--json", *where, *flags)
    assert ran.code == 0, ran.err
    figures: dict[str, Any] = ran.json()
    return figures


def synthetic(divisor: float, games: int, seed: int, spread: float) -> list[Observation]:
    rng = random.Random(seed)
    data = []
    for _ in range(games):
        gap = abs(rng.gauss(0, spread))
        score = 1.0 if rng.random() < win_probability(gap, divisor, 0) else 0.0
        data.append(Observation(gap, score))
    return data


@pytest.mark.parametrize("divisor", [400, 1200, 2000])
def test_the_maximum_likelihood_fit_finds_a_known_divisor(divisor: int) -> None:
    fit = fit_divisor(synthetic(divisor, 20_000, seed=divisor, spread=divisor / 3))
    assert fit.divisor == pytest.approx(divisor, rel=0.05)
    assert fit.low is not None
    assert fit.high is not None
    assert fit.low < divisor < fit.high
    # The profile-likelihood interval is close to the delta method's +-1.96 standard errors.
    assert fit.standard_error is not None
    assert (fit.high - fit.low) / 2 == pytest.approx(1.96 * fit.standard_error, rel=0.1)
    assert fit.games == 20_000


def test_a_wider_confidence_gives_a_wider_interval() -> None:
    data = synthetic(1200, 5_000, seed=9, spread=400)
    narrow, wide = fit_divisor(data, 0.8), fit_divisor(data, 0.99)
    assert narrow.divisor == wide.divisor
    assert wide.low < narrow.low < narrow.high < wide.high  # type: ignore[operator]


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.tuples(st.integers(min_value=0, max_value=900), st.sampled_from([0.0, 0.5, 1.0])),
        min_size=1,
        max_size=60,
    ),
    st.sampled_from([0.8, 0.95, 0.99]),
)
def test_any_fit_is_a_maximum_inside_its_interval(
    games: list[tuple[int, float]], confidence: float
) -> None:
    data = [Observation(float(lead), score) for lead, score in games]
    if all(lead == 0 for lead, _score in games):
        with pytest.raises(ValueError, match="nothing to fit"):
            fit_divisor(data)
        return
    fit = fit_divisor(data, confidence)
    best = log_likelihood(data, fit.slope)
    for factor in (0.9, 1.1):  # the fit only looks at D >= 1 point (|slope| <= MAX_SLOPE)
        other = max(-MAX_SLOPE, min(MAX_SLOPE, fit.slope * factor))
        assert log_likelihood(data, other) <= best + 1e-9
    if fit.divisor is not None and fit.low is not None:
        assert fit.low <= fit.divisor * (1 + 1e-9)
        assert fit.high is None or fit.divisor <= fit.high * (1 + 1e-9)


def test_favourites_who_do_no_better_than_a_coin_fit_no_finite_divisor() -> None:
    data = [Observation(100.0 + index, float(index % 2 == 0)) for index in range(400)]
    data += [Observation(150.0, 0.0)] * 20
    fit = fit_divisor(data)
    assert fit.divisor is None
    assert fit.high is None


def test_the_fit_on_ratings_recovers_the_true_divisor_1200_within_10_percent(
    settled_figures: dict[str, Any],
) -> None:
    figures = settled_figures
    assert figures["current_divisor"] == 1200
    assert figures["current_divisor_source"] == "rules of the latest game: gammon42 1.3.1"
    assert figures["fitted_divisor"] == pytest.approx(1200, rel=0.10)
    low, high = figures["divisor_ci"]
    assert low < figures["fitted_divisor"] < high
    assert high - low < 0.1 * figures["fitted_divisor"]  # 27,000 games pin it down
    # Rating noise pushes the fit up a little; the noise-corrected figure takes that out.
    noise = figures["rating_noise"]
    assert 50 < noise["sd"] < 100
    assert noise["noise_corrected_divisor"] == pytest.approx(1200, rel=0.05)
    assert noise["noise_corrected_divisor"] < figures["fitted_divisor"]
    buckets = figures["buckets"]
    assert [bucket["lead_min"] for bucket in buckets] == list(range(0, 550, 50))
    assert sum(bucket["games"] for bucket in buckets) == figures["games_fitted"]
    assert set(buckets[3]) >= {
        "games", "observed_share", "expected_share_current", "expected_share_fitted",
        "favourite_points_per_game", "observed_ci",
    }  # fmt: skip
    assert figures["spread"]["active_players"] == 100
    assert Path(figures["plot"]).read_bytes()[:8] == PNG_MAGIC


def test_the_hidden_strengths_carry_the_true_divisor(backgammon_history: Path) -> None:
    """The data itself says 1200: the same fit on the hidden strengths, not the ratings."""
    truth = json.loads((backgammon_history.parent / "strengths.json").read_text())["strengths"]
    data = []
    for game in read_jsonl(backgammon_history):
        first, second = (player["id"] for player in game["players"])
        gap = truth[first] - truth[second]
        score = 1.0 if game["winner"] == first else 0.0
        data.append(Observation(abs(gap), score if gap >= 0 else 1 - score))
    fit = fit_divisor(data)
    assert fit.low is not None
    assert fit.high is not None
    assert fit.low < 1200 < fit.high


def test_without_the_burn_in_the_early_games_pull_the_fit_down(
    backgammon_history: Path, settled_figures: dict[str, Any], capsys: pytest.CaptureFixture[str]
) -> None:
    everything = calibrate(capsys, backgammon_history)
    assert everything["games_fitted"] == 40_000
    assert everything["fitted_divisor"] < settled_figures["fitted_divisor"]


def test_replays_under_the_three_versions_show_what_the_article_says(
    backgammon_history: Path,
    settled_figures: dict[str, Any],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Under 400 the ladder's top players win most of their games and still lose rating;
    the ratings are compressed. Under 1200 the curve holds and the top players keep theirs."""
    figures = {"1.3.1": settled_figures}
    for version in ("1.0.5", "1.2.0"):
        replayed = tmp_path / f"{version}.jsonl"
        ran = run(capsys, "replay", backgammon_history, "--ladder", "backgammon",
                  "--ruleset-version", version, "--output", replayed, "--top", 0)  # fmt: skip
        assert ran.code == 0, ran.err
        figures[version] = calibrate(capsys, replayed, "--min-games", 200)
    top = {version: figures[version]["leaders"] for version in figures}
    for leaders in top.values():
        assert leaders["win_share"] > 0.6
    assert top["1.0.5"]["expected_share"] > top["1.0.5"]["win_share"] + 0.05
    assert top["1.0.5"]["points_per_game"] < -1.5
    assert top["1.2.0"]["points_per_game"] < -0.75
    assert abs(top["1.3.1"]["points_per_game"]) < 0.5
    spans = [figures[v]["spread"]["middle_half_span"] for v in ("1.0.5", "1.2.0", "1.3.1")]
    assert spans == sorted(spans)
    assert spans[0] < spans[2] / 2
    assert figures["1.0.5"]["current_divisor"] == 400
    for bucket in figures["1.0.5"]["buckets"][1:]:  # every lead from 50 up
        assert bucket["observed_share"] > 0.5
        assert bucket["favourite_points_per_game"] < 0
        assert bucket["expected_share_current"] > bucket["observed_share"]
    # Under 400 the curve is far too steep for the ratings it made; under 1200 it is close.
    assert figures["1.0.5"]["fitted_divisor"] > 1.3 * 400
    assert figures["1.3.1"]["fitted_divisor"] < 1.1 * 1200


def test_the_noise_correction_holds_where_the_plain_fit_does_not(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A narrow field (sd 150): rating noise is a large part of every rating difference, so
    the plain fit overshoots; the correction recovers the true divisor."""
    games = tmp_path / "narrow.jsonl"
    ran = run(capsys, "simulate", "--players", 100, "--games", 40_000, "--spread", 150,
              "--seed", 2, "--output", games)  # fmt: skip
    assert ran.code == 0
    figures = calibrate(capsys, games, "--min-games", 200)
    assert figures["fitted_divisor"] > 1.15 * 1200
    assert figures["rating_noise"]["attenuation"] < 0.85
    assert figures["rating_noise"]["noise_corrected_divisor"] == pytest.approx(1200, rel=0.05)


def test_the_text_report_has_the_buckets_the_fit_and_the_spread(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    games = tmp_path / "small.jsonl"
    ran = run(capsys, "simulate", "--players", 30, "--games", 6000, "--seed", 3, "-o", games)
    assert ran.code == 0
    plot = tmp_path / "plot.png"
    ran = run(capsys, "calibrate", games, "--ladder", "backgammon",
              "--min-games", 100, "--plot", plot, "--divisor", 800)  # fmt: skip
    assert ran.code == 0, ran.err
    assert "current divisor 800 (--divisor)" in ran.out
    assert "     lead   games  fav. won" in ran.out
    assert "\n     500+ " in ran.out
    assert "fitted divisor 1" in ran.out
    assert "current divisor outside the interval" in ran.out
    assert "noise-corrected divisor" in ran.out
    assert "top 10% of the ladder when they played" in ran.out
    assert "middle half within" in ran.out
    assert f"plot: {plot}" in ran.out
    assert plot.read_bytes()[:8] == PNG_MAGIC


def converted(games: int, seed: int = 1) -> list[dict[str, Any]]:
    """Games from another source: only ids, ratings before, winner and time."""
    rng = random.Random(seed)
    records = []
    for number in range(games):
        a, b = rng.gauss(1500, 200), rng.gauss(1500, 200)
        winner = "a" if rng.random() < win_probability(a - b, 1200, 0) else "b"
        records.append(
            {
                "game_id": f"x{number}",
                "played_at": f"2026-03-01T{number // 3600 % 24:02d}:{number // 60 % 60:02d}:"
                f"{number % 60:02d}+01:00",
                "players": [
                    {"id": "a", "rating_before": round(a)},
                    {"id": "b", "rating_before": round(b)},
                ],
                "winner": winner,
            }
        )
    return records


def test_files_converted_from_elsewhere_need_only_ratings_winner_and_time(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    games = write_jsonl(tmp_path / "other.jsonl", converted(3000))
    figures = calibrate(capsys, games)
    assert figures["fitted_divisor"] == pytest.approx(1200, rel=0.15)
    since = calibrate(capsys, games, "--since", "2026-03-01T00:30:00+01:00")
    assert since["games_fitted"] == 3000 - 1800
    assert figures["rating_noise"] is None
    assert figures["buckets"][0]["favourite_points_per_game"] is None
    assert figures["leaders"]["points_per_game"] is None
    assert figures["leaders"]["win_share"] is not None
    assert figures["current_divisor_source"] == "ladder default, 1.3.1"


def test_nothing_to_fit_and_bad_flags_are_explained(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    records = converted(10)
    for record in records:
        for player in record["players"]:
            player["rating_before"] = 1500
    games = write_jsonl(tmp_path / "ties.jsonl", records)
    ran = run(capsys, "calibrate", games, "--ladder", "backgammon", "--no-plot")
    assert ran.code == 2
    assert "nothing to fit" in ran.err
    for flags, message in [
        (["--confidence", "95"], "--confidence must be between 0 and 1"),
        (["--bucket-width", "0"], "--bucket-width and --max-lead must be positive"),
        (["--since", "monday"], "--since must be an RFC 3339 timestamp"),
    ]:
        ran = run(capsys, "calibrate", games, "--ladder", "backgammon", "--no-plot", *flags)
        assert ran.code == 2
        assert message in ran.err, ran.err
    records[0]["players"][0].pop("rating_before")
    write_jsonl(games, records)
    ran = run(capsys, "calibrate", games, "--ladder", "backgammon", "--no-plot")
    assert ran.code == 2
    assert "players[0].rating_before must be a number" in ran.err


def test_the_observed_interval_of_a_bucket_is_wilsons() -> None:
    from ratings_cli.calibration_figures import Bucket

    bucket = Bucket(0, 50, games=100, favourite_score=60)
    low, high = bucket.observed_interval(1.96)
    assert low == pytest.approx(0.502, abs=1e-3)
    assert high == pytest.approx(0.691, abs=1e-3)
    assert math.isnan(Bucket(0, 50).observed_share)


def test_failing_runs_print_to_stderr_only(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ran: Ran = run(capsys, "calibrate", tmp_path / "nope.jsonl", "--ladder", "backgammon")
    assert ran.code == 2
    assert ran.out == ""
    assert "cannot read" in ran.err
