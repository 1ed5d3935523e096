# The README's two commands: `make run` and `make test`.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
PORT ?= 8000

.PHONY: run test test-fast lint lock bench bench-peer check-python demo
.DEFAULT_GOAL := run

check-python:
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else 1)' 2>/dev/null || { \
	  echo "kinplay needs Python 3.11 or newer; '$(PYTHON)' is $$($(PYTHON) --version 2>&1 || echo missing)."; \
	  echo "Install Python 3.11+ or run: make PYTHON=/path/to/python3.11 run"; exit 1; }

# Installs come from the lock files, which pin every transitive dependency: `make run` gets
# production packages only, `make test` and `make lint` add the test and lint tools.
PIP_INSTALL := $(VENV)/bin/pip install -q --disable-pip-version-check

$(VENV)/.installed: requirements.lock | check-python
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PIP_INSTALL) -r requirements.lock
	@touch $@

$(VENV)/.installed-dev: requirements-dev.lock | check-python
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PIP_INSTALL) -r requirements-dev.lock
	@touch $@

# Re-resolve the lock files from requirements.txt / requirements-dev.txt in throwaway venvs
# (after changing a pin there). The production lock takes the versions the dev lock chose.
LOCK_VENV := var/lock-venv
lock: | check-python
	rm -rf $(LOCK_VENV) && $(PYTHON) -m venv $(LOCK_VENV)
	$(LOCK_VENV)/bin/pip install -q --disable-pip-version-check -r requirements-dev.txt
	{ echo "# Every package \`make test\` installs, pinned: made by \`make lock\` from requirements-dev.txt."; \
	  $(LOCK_VENV)/bin/pip freeze --exclude-editable; } > requirements-dev.lock
	rm -rf $(LOCK_VENV) && $(PYTHON) -m venv $(LOCK_VENV)
	$(LOCK_VENV)/bin/pip install -q --disable-pip-version-check -r requirements.txt -c requirements-dev.lock
	{ echo "# Every package \`make run\` installs, pinned: made by \`make lock\` from requirements.txt."; \
	  $(LOCK_VENV)/bin/pip freeze --exclude-editable; } > requirements.lock
	rm -rf $(LOCK_VENV)

# ruff, mypy, import-linter (pyproject.toml), no import circle and no function over 60 lines in games/.
lint: $(VENV)/.installed-dev
	$(VENV)/bin/ruff check .
	$(VENV)/bin/mypy
	$(VENV)/bin/lint-imports
	$(PY) -m pytest -q -p no:cacheprovider -n 0 tests/test_import_graph.py tests/test_small_functions.py  # no import circle; no function over 60 lines in games/

# The rules engines compiled with mypyc (games/compiled.py): a no-op while the build matches the
# source; if it cannot build (no C compiler), the engines run as Python, only slower.
ENGINES = $(PY) bin/compile-engines || echo "(going on with the Python engines)"

run: $(VENV)/.installed
	$(PY) bin/secret-key
	$(PY) bin/vapid-keys
	@$(ENGINES)
	$(PY) manage.py migrate --noinput -v0
	$(PY) manage.py collectstatic --noinput -v0
	@# The demo players' passwords are public: loaded on the embedded default database only.
	@if [ -z "$$DATABASE_URL" ]; then $(PY) manage.py load_demo --public-passwords; \
	 else echo "DATABASE_URL is set: no demo players (manage.py load_demo --public-passwords adds them)"; fi
	PORT=$(PORT) bin/run

# TEST_JOBS: pytest-xdist processes (auto: one per CPU); TEST_JOBS=0 runs in one process.
TEST_JOBS ?= auto
test: $(VENV)/.installed-dev
	@$(ENGINES)
	$(PY) -m pytest -n $(TEST_JOBS) $(PYTEST_ARGS)

# The quick suite (< 2 minutes on 2 cores): no random-game engine runs, browser, real
# services, mutation runs or tests marked slow, spread over the CPUs by pytest-xdist. CI runs the full `make test`.
test-fast: $(VENV)/.installed-dev
	@$(ENGINES)
	$(PY) -m pytest -n auto --dist loadfile -m "not engine and not browser and not services and not mutation and not slow" $(PYTEST_ARGS)

bench: $(VENV)/.installed
	@$(ENGINES)
	$(PY) bench/engine.py

# kinplay's durable move next to boardgame.io 0.50's (bench/peer/run.py; SECONDS=5 for a quick look).
SECONDS ?= 20
ROUNDS ?= 1
bench-peer: $(VENV)/.installed
	$(PY) bench/peer/run.py --seconds $(SECONDS) --rounds $(ROUNDS)
