# Two commands do everything: `make play` and `make test`.
# Each creates .venv with the system python3 if needed and installs the project into it.
PYTHON ?= python3
VENV := .venv
STAMP := $(VENV)/.installed

$(STAMP): pyproject.toml
	test -d $(VENV) || $(PYTHON) -m venv $(VENV)
	$(VENV)/bin/python -m pip install --quiet --upgrade pip
	$(VENV)/bin/python -m pip install --quiet -e '.[test]'
	touch $(STAMP)

.PHONY: play test bench selfplay
play: $(STAMP)
	$(VENV)/bin/governor play $(ARGS)

test: $(STAMP)
	$(VENV)/bin/python -m pytest -q $(ARGS)

bench: $(STAMP)
	$(VENV)/bin/python bench/engine.py
