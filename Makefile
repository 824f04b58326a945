# Continuity — developer entry points. `make run` and `make test` do all set-up on a fresh machine.
SHELL := /bin/bash
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
CDK_CLI := aws-cdk@2.1148.1
export JSII_SILENCE_WARNING_END_OF_LIFE_NODE_VERSION := 20
export JSII_SILENCE_WARNING_DEPRECATED_NODE_VERSION := 1
STAGE ?= dev
PORT ?= 8787

.PHONY: background-model text-dictionary setup js-tools chromium run test unit contract integration e2e harness browser test-harness test-plugins screenshots lint typecheck format bench synth layer invoke openapi config-table measured-table clean \
	deploy deploy-dry destroy bootstrap smoke redrive restore-drill migrate-project-keys

setup: $(VENV)/.installed

$(VENV)/.installed: pyproject.toml client/pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[dev]' -e ./client
	touch $@

# The JS linter and formatter (Biome, pinned in package.json and package-lock.json) in ./node_modules;
# nothing global. Development only: the dashboard and the plugins ship without a build step or a dependency.
js-tools: node_modules/.installed

node_modules/.installed: package.json package-lock.json
	npm ci --no-audit --no-fund --ignore-scripts --loglevel=error
	touch $@

# Debian's chromium for the dashboard's browser tests (Playwright drives it; nothing is downloaded
# by Playwright itself). Best effort: without it (not root, no apt) those tests skip and say why.
chromium:
	@command -v chromium >/dev/null 2>&1 || { [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1 && \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; } || \
		echo "no chromium: the dashboard's browser tests will skip"

# A line per step; the whole set-up log in build/setup.log. PORT=, TOKEN=, DATA= (the data folder,
# default .continuity-local) pass through to `continuity local`.
SETUP_LOG := build/setup.log
run:
	@mkdir -p build
	@if ! $(MAKE) -q $(VENV)/.installed 2>/dev/null; then \
		echo "setting up $(VENV): Python packages (first run: a few minutes; log in $(SETUP_LOG))"; \
		$(MAKE) --no-print-directory $(VENV)/.installed > $(SETUP_LOG) 2>&1 || \
			{ tail -n 15 $(SETUP_LOG); echo "set-up failed: the whole log is in $(SETUP_LOG)"; exit 1; }; \
	fi
	@echo "starting the local stack (the first start synthesizes the CDK app's grants: ~1 min; Ctrl-C stops it)"
	@$(VENV)/bin/continuity local --port $(PORT) $(if $(TOKEN),--token $(TOKEN),) $(if $(DATA),--data-dir $(DATA),)

# Every test: lint and types first (cheap), the OpenCode/OpenClaw plugins under node's own test
# runner (a few seconds), then every layer below in one pytest run (the e2e, browser and harness
# layers share its local stack; the real CLIs are cached in build/harness-cli, ~2 minutes once installed).
test: setup chromium lint typecheck test-plugins
	$(PY) -m pytest -q

# The test layers, each alone (docs/TESTING.md). unit: the core on in-memory fakes; no socket,
# process, sleep or AWS call (tests/support/unit_guard.py refuses them); aimed at under 15 s. Without the
# schemathesis and hypothesis plugins (only the e2e layer uses them): their import is a second.
unit: setup
	$(PY) -m pytest -q -p no:schemathesis -p no:hypothesispytest tests/unit

# Each fake against its DynamoDB adapter on moto: one suite per port.
contract: setup
	$(PY) -m pytest -q tests/contract

# In one process: the handlers and the local stack's parts on moto under the access guard, the
# CDK app synthesized with cdk-nag, the client against a service on 127.0.0.1.
integration: setup
	$(PY) -m pytest -q tests/integration tests/infra tests/client

# The local stack started as `make run` starts it, driven over HTTP (the dashboard's tests excepted).
e2e: setup
	$(PY) -m pytest -q -m "not browser" tests/e2e

# The real harness CLIs (Claude Code, Codex, Gemini CLI, OpenCode, OpenClaw) against a scripted model.
harness: setup
	$(PY) -m pytest -q -m harness tests/harness

test-harness: harness

# The dashboard in Chromium on the local stack (Playwright drives Debian's chromium).
browser: setup chromium
	$(PY) -m pytest -q -m browser tests/e2e

# The plugins under node's test runner, and the dashboard's router (no DOM in it).
test-plugins:
	node --test tests/plugins/ tests/dashboard/

# The dashboard's screenshots in docs/dashboard/, taken by its browser tests (and the projects page
# of one repository on two machines, by the real-CLI test).
screenshots: setup chromium
	CONTINUITY_SCREENSHOTS=docs/dashboard $(PY) -m pytest -q tests/e2e/test_e2e_dashboard.py tests/harness/test_two_machines.py

# Python (ruff, and mypy: typecheck), the JS we ship and its tests (Biome: lint and format,
# biome.json), and the CloudFormation template as `cdk synth` makes it (cfn-lint, .cfnlintrc.yaml;
# a synth of ~8 s).
lint: setup js-tools typecheck
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	node_modules/.bin/biome ci --colors=off .
	$(PY) -m infra.synth_template build/cfn-lint >/dev/null
	$(VENV)/bin/cfn-lint -- build/cfn-lint/*.template.json

# Every Python folder, the tests too; strict where pyproject.toml's [[tool.mypy.overrides]] says (the
# client's hook path, the hooks function). The client runs on the agent's machine with Python 3.10+
# (client/pyproject.toml): checked against 3.10's standard library too, its own modules only (the
# server's need 3.11).
typecheck: setup
	$(VENV)/bin/mypy layers functions infra client bench tests
	$(VENV)/bin/mypy --python-version 3.10 --follow-imports=silent client

format: setup js-tools
	$(VENV)/bin/ruff check --fix .
	$(VENV)/bin/ruff format .
	node_modules/.bin/biome check --write .

bench: setup
	$(PY) -m bench.run
	$(PY) -m bench.readme_table

# The background term model recovery ranks sentences against (layers/continuity_core/data/), rebuilt
# from ../shared/corpus and English word frequencies; the file is committed, the service only reads it.
background-model: setup
	$(PY) -m bench.build_background

# The preset dictionary long texts are compressed with (layers/continuity_core/data/), from
# ../shared/corpus; frozen once shipped (stored items name it: a new one is a new file and marker).
text-dictionary: setup
	$(PY) -m bench.build_text_dictionary

layer: setup
	$(PY) -m infra.build_layer

synth: layer
	npx --yes $(CDK_CLI) synth --quiet --output cdk.out -c stage=$(STAGE)

openapi: setup
	$(PY) -m infra.openapi

# The client as a wheel a user installs without the repository: pipx install dist/continuity_client-*.whl
CLIENT_DIST ?= dist
client: setup
	$(PY) -m pip wheel --quiet --no-deps --no-build-isolation --wheel-dir $(CLIENT_DIST) ./client
	@ls $(CLIENT_DIST)/continuity_client-*.whl

# The README's configuration table, from the config model (a test fails when it differs).
config-table: setup
	$(PY) -m infra.config_table

# The README's measured table, from bench/results.json (a test fails when it differs; make bench runs it).
measured-table: setup
	$(PY) -m bench.readme_table

# Invoke one function in-process on moto with a sample payload: make invoke FN=hooks EVENT=events/user-prompt-submit.json
invoke: setup
	$(PY) -m infra.local.invoke $(FN) $(EVENT)

# ---- deploy and operate (docs/DEPLOY.md) ----------------------------------------------------
# make deploy STAGE=prod [TOKEN=… | TOKEN_SHA256=…] [EPHEMERAL=1] [APPROVAL=never] [PROFILE=p] [DRY_RUN=1]
# The token travels in the environment, never on a command line (ps would show it); @ keeps make
# from echoing it.
DEPLOY_ARGS = --stage $(STAGE) --cdk-cli $(CDK_CLI) $(if $(PROFILE),--profile $(PROFILE),) \
	$(if $(DRY_RUN),--dry-run,)

deploy: layer
	@CONTINUITY_BOOTSTRAP_TOKEN='$(TOKEN)' $(PY) -m infra.deploy deploy $(DEPLOY_ARGS) \
		$(if $(EPHEMERAL),--ephemeral,) $(if $(TOKEN_SHA256),--token-sha256 $(TOKEN_SHA256),) \
		$(if $(APPROVAL),--require-approval $(APPROVAL),)

deploy-dry: setup
	@CONTINUITY_BOOTSTRAP_TOKEN='$(TOKEN)' $(PY) -m infra.deploy deploy $(DEPLOY_ARGS) --dry-run \
		$(if $(EPHEMERAL),--ephemeral,) $(if $(TOKEN_SHA256),--token-sha256 $(TOKEN_SHA256),) \
		$(if $(APPROVAL),--require-approval $(APPROVAL),)

# make destroy STAGE=pr-42 [FORCE=1]: deletes the stack; stateful resources stay unless it was ephemeral
destroy: layer
	$(PY) -m infra.deploy destroy $(DEPLOY_ARGS) $(if $(FORCE),--force,)

bootstrap: layer
	$(PY) -m infra.deploy bootstrap $(DEPLOY_ARGS)

# make smoke URL=https://… TOKEN=…  (or STAGE=… without URL: the URL from the stack's outputs)
smoke: setup
	@CONTINUITY_URL='$(URL)' CONTINUITY_TOKEN='$(TOKEN)' $(PY) -m infra.smoke \
		$(if $(URL),,--stage $(STAGE)) $(if $(PROFILE),--profile $(PROFILE),)

# make redrive STAGE=prod | make redrive LOCAL=1 MOTO_URL=http://127.0.0.1:5001 [DRY_RUN=1]
redrive: setup
	$(PY) -m infra.redrive $(if $(LOCAL),--local $(if $(MOTO_URL),--endpoint-url $(MOTO_URL),),--stage $(STAGE)) \
		$(if $(PROFILE),--profile $(PROFILE),) $(if $(DRY_RUN),--dry-run,)

# Once after deploying issue 22's hashed project keys (docs/SECURITY.md): make migrate-project-keys STAGE=prod [DRY_RUN=1]
migrate-project-keys: setup
	$(PY) -m infra.migrate_project_keys $(if $(TABLE),--table $(TABLE) $(if $(MOTO_URL),--endpoint-url $(MOTO_URL),),--stage $(STAGE)) \
		$(if $(PROFILE),--profile $(PROFILE),) $(if $(DRY_RUN),--dry-run,)

# Back up, lose, restore and compare, on a local stack of its own (docs/DEPLOY.md); exits 1 on any difference.
restore-drill: setup
	$(PY) -m infra.restore_drill

clean:
	rm -rf cdk.out build dist client/build .pytest_cache .mypy_cache .ruff_cache
