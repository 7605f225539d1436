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

.PHONY: play check test bench selfplay browser
play: $(STAMP)
	@$(VENV)/bin/governor play $(ARGS)

# Lint and types before the tests (pyproject.toml says what each covers): any finding, in the
# tool's own words, stops the build.
check: $(TEST_STAMP)
	$(VENV)/bin/ruff check --quiet .
	$(VENV)/bin/mypy

# The suite mostly waits (real servers, real terminals, games at a person's pace): three pytest-xdist
# workers fill two cores. Tests that must not run beside each other share an xdist_group.
TEST_WORKERS ?= 3
test: check browser
	$(VENV)/bin/python -m pytest -q -n $(TEST_WORKERS) --dist loadgroup $(ARGS)

# The standings page is tested in a real headless browser, Chromium from the system's packages
# (tests/client/test_ratings.py): installed here with apt-get when it is missing and we
# are root; otherwise said, and that test fails naming it.
browser:
	@command -v chromium >/dev/null 2>&1 || command -v chromium-browser >/dev/null 2>&1 || { \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	    echo "Installing chromium with apt-get for the standings page's test (the first time only)…"; \
	    { apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y chromium; } \
	      > /tmp/governor-chromium.log 2>&1 \
	      || { cat /tmp/governor-chromium.log; echo "Installing chromium failed: see above."; exit 1; }; \
	  else \
	    echo "The standings page's test needs Chromium, which is not installed: install it with"; \
	    echo "  sudo apt-get install chromium    (Debian, Ubuntu; elsewhere your system's chromium package)"; \
	    echo "Until then that test fails."; \
	  fi; }

bench: $(STAMP)
	$(VENV)/bin/python bench/engine.py
