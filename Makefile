# The two commands of the README: `make run` and `make test`.
# Both create .venv when needed and reinstall only when pyproject.toml changed.

PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.xyclaw-installed
# Two workers more than the cores (4 on the 2-core machines this runs on): most tests wait on
# a subprocess, a simulated cloud, sshd or Slurm, not on the CPU (3 workers kept 1.2 of 2 cores
# busy on average, and took 15.6-17.7 minutes on a slower machine; 4 took 14.3).
PYTEST_WORKERS ?= $(shell echo $$(( $$(nproc 2>/dev/null || echo 2) + 2 )))

# Python caches what it compiles (__pycache__, ignored by git) for every command here. With
# PYTHONDONTWRITEBYTECODE set, as it is on the machines CI runs on, each of the hundreds of
# `xyclaw` processes the tests start compiled the package again (0.5 s against 0.2 s for its
# imports), and each pytest worker rewrote the asserts of every test module (26 s of CPU).
unexport PYTHONDONTWRITEBYTECODE

.PHONY: run test lint typecheck unit system-deps bench bench-smoke clean package soak

$(STAMP): pyproject.toml
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else 1)' || \
	  { echo "XyClaw needs Python 3.11 or newer; run: make PYTHON=python3.11 ..."; exit 1; }
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check --upgrade pip
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -e '.[dev]'
	@touch $(STAMP)

run: $(STAMP)
	@$(BIN)/xyclaw

system-deps:
	@bash scripts/ensure-system-deps.sh

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/lint-imports

typecheck: $(STAMP)
	$(BIN)/mypy

unit: $(STAMP) system-deps
	$(BIN)/pytest -n $(PYTEST_WORKERS) -q

# A failed test is run once more (pytest-rerunfailures); a rerun is printed as "R" and listed in
# the summary, so a race is seen and fixed, not hidden: one that fails twice fails the run.
# Workers steal queued tests from each other (worksteal): with xdist's default a worker keeps
# the share it was handed, long tests and all, while one that has finished waits. Measured
# here: pytest 9:05 with worksteal; 10:27, 10:31, 10:31 and 13:15 without (one run each).
test: $(STAMP) system-deps lint typecheck
	$(BIN)/pytest -n $(PYTEST_WORKERS) --dist worksteal -q --reruns 1 -rR -m "not soak"

# The tests that wait minutes on a real daemon's own timers (Slurm holds a requeued job for
# 120 s): out of make test, which stays under 15 minutes on a 2-core machine.
soak: $(STAMP) system-deps
	$(BIN)/pytest -q -m soak

# Every bench/*_bench.py and bench/*_eval.py (bench/README.md): full size, or at the smoke size
# CI runs, where one that fails or does not end with its JSON line fails the run.
bench: $(STAMP) system-deps
	$(BIN)/python bench/run_benches.py

bench-smoke: $(STAMP) system-deps
	$(BIN)/python bench/run_benches.py --smoke

# The one-folder desktop app (dist/xyclaw/) from packaging/xyclaw.spec; packaging/smoke.sh checks it.
package: $(STAMP)
	@$(BIN)/pyinstaller --version >/dev/null 2>&1 || \
	  $(BIN)/python -m pip install --quiet --disable-pip-version-check -e '.[package]'
	$(BIN)/pyinstaller --noconfirm --log-level WARN --distpath dist --workpath build/pyinstaller packaging/xyclaw.spec
	@echo "built dist/xyclaw/ ($$(du -sh dist/xyclaw | cut -f1)); check it with: packaging/smoke.sh"

clean:
	rm -rf $(VENV) .mypy_cache .ruff_cache .pytest_cache build dist
