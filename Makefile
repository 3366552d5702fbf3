# Two entry points for a fresh machine: `make lab` and `make test`.
# Each creates/updates .venv from pyproject.toml; Jupyter, IPython and matplotlib
# keep their state under .state/ (ignored), never in the user's home.

PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed-stamp
UV     := $(VENV)/bin/uv
# what requirements.lock resolves: the project with the extras make venv installs
LOCK_INPUT := --extra course --extra test
STATE  := $(CURDIR)/.state

export JUPYTER_CONFIG_DIR   := $(STATE)/jupyter/config
export JUPYTER_DATA_DIR     := $(STATE)/jupyter/data
export JUPYTER_RUNTIME_DIR  := $(STATE)/jupyter/runtime
export JUPYTERLAB_SETTINGS_DIR  := $(STATE)/jupyter/lab-settings
export JUPYTERLAB_WORKSPACES_DIR := $(STATE)/jupyter/lab-workspaces
export IPYTHONDIR           := $(STATE)/ipython
export MPLCONFIGDIR         := $(STATE)/matplotlib
# Figures the chapter draws under nbgrader (Validate, autograde), cached by attnkit.static.
export ATTNKIT_CACHE_DIR    := $(STATE)/attnkit-cache
export JUPYTER_PLATFORM_DIRS := 1
export npm_config_cache     := $(STATE)/npm

.PHONY: lab test test-fast test-hub-class test-upgrade nbgrader-record lock venv release book labextension grade report service system-deps clean hub hub-remove lms-sync translations due extend

venv: $(STAMP)

# The venv's own pip and uv, made once (a venv left half-made, without pip, e.g. python3-venv missing then, is rebuilt).
$(UV):
	test -x $(VENV)/bin/pip || $(PYTHON) -m venv --clear $(VENV)
	$(PY) -m pip install --quiet --upgrade pip 'uv>=0.9,<1'

# The tested versions: requirements.lock (every package and its hashes, from pyproject's ranges; `make lock`),
# then the project itself without dependencies. uv installs them in ≈ 10 s (pip: ≈ 50 s); the hub's user
# environment is built from this venv's versions too (autograde/hub/userenv.py).
$(STAMP): pyproject.toml requirements.lock | $(UV)
	$(UV) pip install --quiet --python $(PY) --compile-bytecode --require-hashes -r requirements.lock
	$(UV) pip install --quiet --python $(PY) --compile-bytecode --no-deps -e .
	@# The students' Lab extension, as committed (built by `make labextension`): a wheel installs it (pyproject's
	@# data-files), an editable install does not.
	mkdir -p $(VENV)/share/jupyter/labextensions
	ln -sfn $(CURDIR)/autograde/coursekit/labextension/attention-feedback $(VENV)/share/jupyter/labextensions/
	@# The torch oracle tests run when a local CPU wheel is on disk; they skip otherwise.
	-@ls /opt/wheels/torch-2.13.0+cpu-*.whl >/dev/null 2>&1 && \
	  $(UV) pip install --quiet --python $(PY) $$(ls /opt/wheels/torch-2.13.0+cpu-*.whl | head -1) || true
	touch $(STAMP)

# requirements.lock again from pyproject.toml: the versions it pins stay unless pyproject's ranges exclude them
# (`make lock UPGRADE=1` takes the newest allowed instead: run `make test-upgrade` first). Commit it.
UPGRADE ?=
lock: | $(UV)
	$(UV) pip compile --quiet pyproject.toml $(LOCK_INPUT) --generate-hashes --python $(PY) \
	  --custom-compile-command "make lock" $(if $(UPGRADE),--upgrade) -o requirements.lock

# The newest versions pyproject's ranges allow, in a throw-away venv (.state/upgrade/venv), and the unit tier run
# there (UPGRADE_TESTS: other pytest arguments, e.g. UPGRADE_TESTS=tests for everything); first, what differs
# from requirements.lock. Then nbgrader's own app tests there: plain, recorded for that nbgrader in
# tests/support/nbgrader_plain_outcomes.json (saying what changed: commit it), and with the course's plug-ins,
# compared with that record. Nothing here changes .venv or the lock.
UPGRADE_DIR := $(STATE)/upgrade
UPGRADE_PY := $(UPGRADE_DIR)/venv/bin/python
UPGRADE_TESTS ?= -m "not integration"

test-upgrade: export PYTHONDONTWRITEBYTECODE :=
test-upgrade: | $(UV)
	rm -rf $(UPGRADE_DIR) && mkdir -p $(UPGRADE_DIR)
	$(UV) venv --quiet --python $(PY) $(UPGRADE_DIR)/venv
	$(UV) pip compile --quiet pyproject.toml $(LOCK_INPUT) --python $(UPGRADE_PY) --upgrade --no-header \
	  -o $(UPGRADE_DIR)/newest.txt
	$(UV) pip install --quiet --python $(UPGRADE_PY) --compile-bytecode -r $(UPGRADE_DIR)/newest.txt
	$(UV) pip install --quiet --python $(UPGRADE_PY) --no-deps -e .
	mkdir -p $(UPGRADE_DIR)/venv/share/jupyter/labextensions
	ln -sfn $(CURDIR)/autograde/coursekit/labextension/attention-feedback $(UPGRADE_DIR)/venv/share/jupyter/labextensions/
	$(PY) scripts/lock_diff.py requirements.lock $(UPGRADE_DIR)/newest.txt | tee $(UPGRADE_DIR)/differs.txt
	$(UPGRADE_PY) tests/support/nbgrader_apps.py 2>&1 | tee $(UPGRADE_DIR)/nbgrader-plain.txt
	$(UPGRADE_PY) -m pytest $(XDIST) -p no:cacheprovider --ignore=$(NBGRADER_APPS) $(UPGRADE_TESTS); status=$$?; \
	  $(UPGRADE_PY) -m pytest -p no:cacheprovider $(NBGRADER_APPS); apps=$$?; \
	  cat $(UPGRADE_DIR)/differs.txt $(UPGRADE_DIR)/nbgrader-plain.txt; \
	  echo "test-upgrade: pytest exited $$status with the versions above, nbgrader's app tests with the plug-ins $$apps"; \
	  [ $$status -eq 0 ] && [ $$apps -eq 0 ]

# nbgrader's own app tests, plain, with .venv's nbgrader: their outcomes recorded in
# tests/support/nbgrader_plain_outcomes.json, what make test compares the plug-ins' run with (commit it).
NBGRADER_APPS := tests/integration/test_nbgrader_apps.py

nbgrader-record: venv
	$(PY) tests/support/nbgrader_apps.py

# JupyterLab refuses to run as root unless told; containers and CI machines often are root.
ALLOW_ROOT := $(if $(filter 0,$(shell id -u)),--allow-root)
# Extra flags for `make lab`, e.g. LAB_ARGS="--port=9999 --no-browser".
LAB_ARGS ?=
# No "receive Jupyter news?" pop-up over the chapter.
NEWS_OFF := $(JUPYTERLAB_SETTINGS_DIR)/@jupyterlab/apputils-extension/notification.jupyterlab-settings

$(NEWS_OFF):
	mkdir -p $(dir $@)
	echo '{"fetchNews": "false", "checkForUpdates": false}' > $@

# The marking page (coursekit.marking): server extension + the 批改 menu, written into .state/ (instructors' Lab).
lab: venv $(NEWS_OFF)
	$(PY) -m coursekit.marking.enable --base-url /
	$(VENV)/bin/jupyter lab --ip=127.0.0.1 $(ALLOW_ROOT) \
	  --LabApp.default_url=/lab/tree/notebooks/ch04_attention.ipynb $(LAB_ARGS)

# pytest-xdist: JOBS workers (default: one per core; one more made timing tests flaky and saved nothing). Tests sharing
# a session's graded class or hub run in one worker, so each is made once (tests/conftest.py). JOBS=0: one process.
JOBS ?= auto
XDIST := -n $(JOBS) --dist loadgroup
# pytest keeps each test module it rewrites (for its assert messages) as bytecode in __pycache__/; with
# PYTHONDONTWRITEBYTECODE set (some images set it for everyone) every run rewrites them all again, ≈ 5 s a worker.
test test-fast test-hub-class: export PYTHONDONTWRITEBYTECODE :=

test: venv system-deps
	$(PY) -m pytest $(XDIST)

# Unit tests only (attnkit, the grader, the nbgrader extensions): no nbgrader CLI, no servers, no browser.
test-fast: venv
	$(PY) -m pytest $(XDIST) tests/unit

# A class of HUB_CLASS students at once on a hub of its own (as root; docs/deploy-hub.md, "A class at once"):
# log in, fetch, submit within a minute, feedback from the grading service; prints what it measured.
HUB_CLASS ?= 30

test-hub-class: venv system-deps
	ATTN_HUB_CLASS=$(HUB_CLASS) $(PY) -m pytest -s -p no:cacheprovider tests/integration/test_hub_class.py

# The course on JupyterHub, 127.0.0.1 only (docs/deploy-hub.md): prints the URL and the logins.
# As root each hub user is a Unix user; otherwise a labelled single-account demo. Ctrl-C stops it.
HUB_PORT ?= 8000

# LTI=<file>: the hub inside an LMS (docs/deploy-lms.md): log-in from the LMS's course page, scores back to its gradebook.
LTI ?=

hub: venv
	cd autograde && $(CURDIR)/$(PY) -m hub --port $(HUB_PORT) $(if $(LTI),--lti '$(abspath $(LTI))')

# Delete the hub's Unix users (attn-*), their homes, the hub's folder (/srv/attention-hub; .state/hub in demo mode)
# and the users' environment /opt/attention-hub, after keeping the instructor's ~/course as hub-archives/
# hub-course-<date>.tar.gz. A running hub is left alone (nothing removed) unless FORCE=1 (a terminal asks).
hub-remove: venv
	cd autograde && $(CURDIR)/$(PY) -m hub --remove $(if $(filter 1 yes true,$(FORCE)),--force)

# Autograde every submission in autograde/submitted/ with WORKERS nbgrader workers (coursekit.grading).
# DB_URL=postgresql://… shares one gradebook; SHARD=i/n grades shard i of n; FORCE=1 grades again.
# The command lines live in autograde/Makefile, the course's own (a hub instructor runs it in ~/course).

grade: venv
	@$(MAKE) --no-print-directory -C autograde grade PYTHON=$(CURDIR)/$(PY)

# The due date of the chapter (both editions), and one student's extension, recorded with who and when; the grade
# recomputed everywhere, nothing regraded (coursekit.marking.dates): make due DUE="2027-01-15 23:59",
# make extend STUDENT=alice UNTIL="2027-01-20 23:59" REASON="…" (UNTIL=none withdraws it).
due extend: venv
	@$(MAKE) --no-print-directory -C autograde $@ PYTHON=$(CURDIR)/$(PY)

# The grading service on autograde/ (coursekit.service): each submission in the exchange graded and its
# feedback released as it arrives, until Ctrl-C; the hub runs it by itself (docs/deploy-hub.md).
service: venv
	$(MAKE) --no-print-directory -C autograde service PYTHON=$(CURDIR)/$(PY)

# The course's scores to its LMS (docs/deploy-lms.md): run in the instructor's hub terminal (~/course), where the
# hub hands out the LMS's tokens; here it says whether autograde/ is connected to an LMS.
lms-sync: venv
	$(MAKE) --no-print-directory -C autograde lms-sync PYTHON=$(CURDIR)/$(PY)

# Every word's catalogue from the code (Babel): each domain's .pot (coursekit, attnkit, grader: <package>/locale/),
# each language's .po updated from it, each .po compiled into the committed .mo beside it; ends naming any message
# still without text (autograde/README.md, "Words").
translations: venv
	$(PY) scripts/translations.py

# Regenerate notebooks/ch04_attention.ipynb from the nbgrader master (autograde/source/…).
release: venv
	$(PY) scripts/release_notebook.py

# The students' Lab extension (autograde/coursekit/labextension/src/index.ts) built by JupyterLab's builder into
# the committed attention-feedback/ beside it, which `make venv` links and the wheel ships: commit both. Needs
# node >= 20.19 and npm; npm installs package-lock.json under .state/ (scripts/build_labextension.py).
labextension: venv
	$(PY) scripts/build_labextension.py

# The static HTML edition: notebooks/ch04_attention.ipynb executed, as book/_build/html/index.html (one file).
book: venv
	$(PY) scripts/build_book.py

# The class report after autograding: autograde/reports/<assignment>/index.html + four CSV files, one per edition
# of the chapter (ASSIGNMENT=ch04_attention_en: that one only), in the course's language (c.CourseKit.language).
# The gradebook, for every command: DB_URL when set, else the course config's, else autograde/gradebook.db.
report: venv
	@$(MAKE) --no-print-directory -C autograde report PYTHON=$(CURDIR)/$(PY)

# Chromium, a CJK font and bubblewrap (the grading sandbox), installed when root + apt (as CI).
system-deps:
	@bash scripts/ensure-system-deps.sh

clean:
	rm -rf $(VENV) $(STATE) artefacts book/_build
