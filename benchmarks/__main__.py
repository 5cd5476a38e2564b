"""Run every benchmark of this package (or the ones named), each in its own process.

Each benchmark sets up its own emulated AWS (moto patches botocore process-wide), so a fresh
interpreter per benchmark keeps them from seeing each other's state.
"""

import pkgutil
import subprocess
import sys
import time
from pathlib import Path


def benchmark_names() -> list[str]:
    package = Path(__file__).parent
    return sorted(
        module.name
        for module in pkgutil.iter_modules([str(package)])
        if not module.name.startswith("_")
    )


def main(argv: list[str] | None = None) -> int:
    names = benchmark_names()
    chosen = list(sys.argv[1:] if argv is None else argv) or names
    unknown = [name for name in chosen if name not in names]
    if unknown:
        print(f"unknown benchmark(s): {', '.join(unknown)}; known: {', '.join(names)}")
        return 2
    failed = []
    for name in chosen:
        print(f"=== benchmarks.{name} ===", flush=True)
        started = time.perf_counter()
        status = subprocess.call([sys.executable, "-m", f"benchmarks.{name}"])
        print(f"=== benchmarks.{name}: exit {status}, {time.perf_counter() - started:.1f} s ===\n")
        if status != 0:
            failed.append(name)
    if failed:
        print(f"failed: {', '.join(failed)}")
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
