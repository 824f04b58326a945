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

.PHONY: setup run test lint typecheck format bench synth layer invoke openapi clean

setup: $(VENV)/.installed

$(VENV)/.installed: pyproject.toml client/pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[dev]' -e ./client
	touch $@

run: setup
	$(VENV)/bin/continuity local --port $(PORT) $(if $(TOKEN),--token $(TOKEN),)

test: setup
	$(PY) -m pytest -q

lint: setup
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .

typecheck: setup
	$(VENV)/bin/mypy layers functions infra client bench

format: setup
	$(VENV)/bin/ruff check --fix .
	$(VENV)/bin/ruff format .

bench: setup
	$(PY) -m bench.run

layer: setup
	$(PY) -m infra.build_layer

synth: layer
	npx --yes $(CDK_CLI) synth --quiet --output cdk.out -c stage=$(STAGE)

openapi: setup
	$(PY) -m infra.openapi

# Invoke one function in-process on moto with a sample payload: make invoke FN=hooks EVENT=events/user-prompt-submit.json
invoke: setup
	$(PY) -m infra.local.invoke $(FN) $(EVENT)

clean:
	rm -rf cdk.out build .pytest_cache .mypy_cache .ruff_cache
