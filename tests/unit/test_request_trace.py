"""The request trace's counting (benchmarks/request_trace.py), on a synthetic project of three
modules that call each other directly, through a library, and back into a caller."""

import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest

from benchmarks.request_trace import PROJECT, ROOT, ModuleNames, trace_calls

MODULES = {
    "project/tr_a.py": """
        import tr_b
        import tr_lib

        def run():
            tr_b.first()
            tr_b.first()
            tr_lib.apply(tr_b.callback)
            return helper()

        def helper():
            return 1

        def back():
            return 2
    """,
    "project/tr_b.py": """
        import tr_c

        def first():
            return tr_c.deep()

        def callback():
            return 0
    """,
    "project/tr_c.py": """
        import tr_a

        def deep():
            return tr_a.back()
    """,
    # Not the project's: its frame is skipped, its callback is a call from tr_a.
    "library/tr_lib.py": """
        def apply(function):
            return function()
    """,
}


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    for name, source in MODULES.items():
        path = tmp_path / name
        path.parent.mkdir(exist_ok=True)
        path.write_text(textwrap.dedent(source))
    monkeypatch.syspath_prepend(str(tmp_path / "library"))
    monkeypatch.syspath_prepend(str(tmp_path / "project"))
    yield tmp_path / "project"
    for name in ("tr_a", "tr_b", "tr_c", "tr_lib"):
        sys.modules.pop(name, None)


def test_the_trace_counts_modules_edges_calls_and_reentries(project: Path) -> None:
    import tr_a

    profile = sys.getprofile()
    result, shape = trace_calls(tr_a.run, {project: "synthetic."})

    assert result == 1
    assert sys.getprofile() is profile
    assert list(shape.modules) == ["synthetic.tr_a", "synthetic.tr_b", "synthetic.tr_c"]
    # a -> b twice directly and once through the library; b -> c and c -> a on each first().
    assert shape.edges == {
        ("synthetic.tr_a", "synthetic.tr_b"): 3,
        ("synthetic.tr_b", "synthetic.tr_c"): 2,
        ("synthetic.tr_c", "synthetic.tr_a"): 2,
    }
    assert shape.calls == 7
    # Every cross-module call but the first into tr_b and tr_c; the two calls back into tr_a
    # find it still on the stack.
    assert (shape.reentries, shape.reentries_on_stack) == (5, 2)


def test_module_names_are_the_projects_paths_dotted() -> None:
    names = ModuleNames(PROJECT)

    assert names(str(ROOT / "functions" / "api" / "app.py")) == "functions.api.app"
    assert names(str(ROOT / "layers" / "ratings" / "wiring.py")) == "ratings.wiring"
    assert names(str(ROOT / "infra" / "ratings_local" / "stack.py")) == "ratings_local.stack"
    assert names(textwrap.__file__) is None
    assert names("<string>") is None
