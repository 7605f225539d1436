# Two commands do everything: `make play` and `make test`.
# Each creates .venv with the system python3 if needed and installs the project into it.
PYTHON ?= python3
VENV := .venv
STAMP := $(VENV)/.installed

# pip's and setuptools' chatter (an "editable installation" warning box, among others) goes to
# .venv/install.log, shown only when the installation fails.
$(STAMP): pyproject.toml
	@echo "Installing governor into $(VENV) (the first time only; details in $(VENV)/install.log)…"
	@test -d $(VENV) || $(PYTHON) -m venv $(VENV)
	@{ $(VENV)/bin/python -m pip install --quiet --upgrade pip && \
	   $(VENV)/bin/python -m pip install --quiet -e '.[test]'; } > $(VENV)/install.log 2>&1 || \
	   { cat $(VENV)/install.log; echo "The installation failed: see above."; exit 1; }
	@touch $(STAMP)

.PHONY: play test bench selfplay
play: $(STAMP)
	@$(VENV)/bin/governor play $(ARGS)

test: $(STAMP)
	$(VENV)/bin/python -m pytest -q $(ARGS)

bench: $(STAMP)
	$(VENV)/bin/python bench/engine.py
