# cardclub: `make run` serves the club (web server, task worker and scheduler, stopped together
# by Ctrl-C), `make test` runs every test. Both set up .venv first.
PYTHON ?= python3.11
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed-stamp

.PHONY: run test lint format bench races messages clean

# Where `make run` serves: `make run PORT=8080` (HOST=0.0.0.0 to serve the local network).
HOST ?= 127.0.0.1
PORT ?= 8000

# Reinstall only when the dependencies change, so a second `make run` starts at once.
$(STAMP): pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

# Development mode is asked for: without DEBUG=1 the settings are production's.
run: export DEBUG := 1
run: $(STAMP)
	$(PY) manage.py migrate --noinput
	$(PY) manage.py seed_demo
	@echo "cardclub is at http://$(HOST):$(PORT)/  (stop with Ctrl-C)"
	$(PY) manage.py runclub $(HOST):$(PORT)

test: $(STAMP)
	$(PY) -m pytest

lint: $(STAMP)
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .

format: $(STAMP)
	$(VENV)/bin/ruff check --fix .
	$(VENV)/bin/ruff format .

# Benchmarks print their figures and fail when a target is missed.
bench: $(STAMP)
	@set -e; for f in tests/bench/bench_*.py; do \
		m=$$(echo $$f | sed 's#/#.#g; s#\.py$$##'); \
		echo "== $$m"; $(PY) -m $$m; \
	done

# Simultaneous requests against gunicorn on every database; prints the figures (issue 16).
races: $(STAMP)
	$(PY) -m tests.load.races --rounds $${RACE_ROUNDS:-20}

# Needs GNU gettext; the compiled .mo files are committed so a fresh machine does not.
messages: $(STAMP)
	$(PY) manage.py makemessages -l es -l en --no-obsolete --ignore=.venv --ignore=staticfiles
	$(PY) manage.py compilemessages --ignore=.venv

clean:
	rm -rf $(VENV) staticfiles db.sqlite3*
