# Two commands do everything: `make play` and `make test`.
# Each creates .venv with the system python3 if needed and installs the project into it: `make
# play` what playing needs, `make test` the test extras (pyproject.toml: with the PostgreSQL driver) as well.
PYTHON ?= python3
VENV := .venv
STAMP := $(VENV)/.installed
TEST_STAMP := $(VENV)/.installed-test
PIP := $(VENV)/bin/python -m pip install --quiet
# pip's and setuptools' chatter (an "editable installation" warning box, among others) goes to
# .venv/install.log, shown only when the installation fails.
LOGGED := > $(VENV)/install.log 2>&1 || { cat $(VENV)/install.log; echo "The installation failed: see above."; exit 1; }

$(STAMP): pyproject.toml
	@echo "Installing governor into $(VENV) (the first time only; details in $(VENV)/install.log)…"
	@test -d $(VENV) || $(PYTHON) -m venv $(VENV)
	@{ $(PIP) --upgrade pip && $(PIP) -e '.'; } $(LOGGED)
	@touch $(STAMP)

$(TEST_STAMP): $(STAMP)
	@echo "Installing the test extras into $(VENV) (the first time only; details in $(VENV)/install.log)…"
	@$(PIP) -e '.[test]' $(LOGGED)
	@touch $(TEST_STAMP)

.PHONY: play test bench selfplay
play: $(STAMP)
	@$(VENV)/bin/governor play $(ARGS)

# The suite mostly waits (real servers, real terminals, games at a person's pace): four pytest-xdist
# workers fill two cores. Tests that must not run beside each other share an xdist_group.
TEST_WORKERS ?= 4
test: $(TEST_STAMP)
	$(VENV)/bin/python -m pytest -q -n $(TEST_WORKERS) --dist loadgroup $(ARGS)

bench: $(STAMP)
	$(VENV)/bin/python bench/engine.py
