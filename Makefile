# The two commands a newcomer needs: `make run` and `make test`. Both bootstrap .venv first.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-$(shell cksum pyproject.toml | cut -d' ' -f1)
ARGS ?=

.PHONY: setup run test lint types unit bench clean

setup: $(STAMP)

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	rm -f $(VENV)/.installed-*
	touch $@

run: setup
	$(BIN)/python -m ratings_local $(ARGS)

lint: setup
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

types: setup
	$(BIN)/mypy

unit: setup
	$(BIN)/pytest tests/unit

# Everything CI checks: lint, types, then every test. pytest's "no tests collected" (exit 5)
# is not a failure of the code, so it is reported and passed; anything else fails the run.
test: lint types
	$(BIN)/pytest -n auto --dist loadgroup; status=$$?; \
	if [ $$status -eq 5 ]; then echo "pytest collected no tests"; exit 0; fi; exit $$status

bench: setup
	$(BIN)/python -m benchmarks

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache .hypothesis
