"""The calibration picture: observed favourite win share against the expected-score curves,
and the spread of the active players' ratings. matplotlib's Agg canvas, no display needed."""

from pathlib import Path

from ratings_cli.calibration import expected_share
from ratings_cli.calibration_report import Report
from ratings_cli.records import InputError


def write_plot(report: Report, path: Path, title: str | None = None) -> None:
    try:
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.figure import Figure
    except ImportError:  # pragma: no cover - matplotlib is a dev dependency
        raise InputError(
            "the plot needs matplotlib: pip install matplotlib (or pass --no-plot)"
        ) from None
    figure = Figure(figsize=(11, 4.6), layout="constrained")
    FigureCanvasAgg(figure)
    curve_axes, spread_axes = figure.subplots(1, 2, width_ratios=[3, 2])

    buckets = [bucket for bucket in report.buckets if bucket.games]
    z = report.z
    widest = max(
        [bucket.mean_lead for bucket in buckets] + [float(report.buckets[-1].low)], default=500
    )
    xs = [widest * 1.05 * step / 200 for step in range(201)]
    current = report.current_divisor
    curve_axes.plot(
        xs,
        [expected_share(x, current) for x in xs],
        color="tab:red",
        label=f"expected, current divisor {current:.0f}",
    )
    fit = report.fit
    if fit.divisor is not None:
        curve_axes.plot(
            xs,
            [expected_share(x, fit.divisor) for x in xs],
            color="tab:blue",
            label=f"expected, fitted divisor {fit.divisor:.0f}",
        )
        if fit.low is not None:
            high = fit.high
            curve_axes.fill_between(
                xs,
                [expected_share(x, fit.low) for x in xs],
                [expected_share(x, high) if high else 0.5 for x in xs],
                color="tab:blue",
                alpha=0.15,
                linewidth=0,
                label=f"{fit.confidence:.0%} interval of the fit",
            )
    corrected = report.noise.corrected(fit.divisor) if report.noise else None
    if corrected is not None:
        curve_axes.plot(
            xs,
            [expected_share(x, corrected) for x in xs],
            color="tab:green",
            linestyle="--",
            label=f"noise-corrected divisor {corrected:.0f}",
        )
    centres = [bucket.mean_lead for bucket in buckets]
    shares = [bucket.observed_share for bucket in buckets]
    intervals = [bucket.observed_interval(z) for bucket in buckets]
    curve_axes.errorbar(
        centres,
        shares,
        yerr=[
            [share - low for share, (low, _high) in zip(shares, intervals, strict=True)],
            [high - share for share, (_low, high) in zip(shares, intervals, strict=True)],
        ],
        fmt="o",
        color="black",
        markersize=4,
        capsize=2,
        label="observed (per bucket, with its interval)",
    )
    curve_axes.set_xlabel("favourite's rating lead before the game (points)")
    curve_axes.set_ylabel("favourite's win share")
    curve_axes.set_ylim(0.4, 1.0)
    curve_axes.set_xlim(0, widest * 1.05)
    curve_axes.grid(alpha=0.3)
    curve_axes.legend(loc="upper left", fontsize=8)
    curve_axes.set_title(title or f"{report.ladder}: {report.games_fitted} games", fontsize=10)

    spread = report.spread
    if spread is not None and spread.players:
        spread_axes.hist(spread.ratings, bins=min(40, max(5, spread.players // 5)), color="grey")
        low, high = spread.q(0.25), spread.q(0.75)
        spread_axes.axvspan(
            low,
            high,
            color="tab:orange",
            alpha=0.3,
            zorder=0,
            label=f"middle half: {high - low:.0f} points",
        )
        spread_axes.set_xlabel("rating after the last game")
        spread_axes.set_ylabel("active players")
        spread_axes.legend(loc="upper right", fontsize=8)
        spread_axes.set_title(
            f"{spread.players} active players (last {spread.active_days:g} days)", fontsize=10
        )
    else:
        spread_axes.set_axis_off()
    figure.savefig(path, dpi=110)
