# The bot's image: the package with its PostgreSQL and Redis extras in a virtualenv, run as an
# unprivileged user. docs/deploying.md says how to build it, run it and build it without a
# registry (BASE: any Debian-like image with python3 >= 3.11 and its venv module).
ARG BASE=python:3.11-slim

# ---- build: the wheels, installed into /opt/durak --------------------------------------------
# Every dependency has a binary wheel for CPython 3.11 on x86-64 (built so here): no compiler is
# installed. On a platform without them, add build-essential here: it stays in this stage.
FROM ${BASE} AS build
ENV PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_NO_CACHE_DIR=1
RUN python3 -m venv /opt/durak
WORKDIR /src
COPY pyproject.toml README.md LICENSE ./
# The dependencies' wheels first, from pyproject.toml alone (empty packages stand in for the
# source): a layer the build's cache keeps until the dependencies change, so that a change of
# the bot's code does not download them again. The stand-in's build tree goes with it (its
# empty files would be newer than the copied source's and be packaged instead).
RUN mkdir engine tg_durak && touch engine/__init__.py tg_durak/__init__.py \
 && /opt/durak/bin/pip wheel --wheel-dir /wheels '.[postgres,scale]' \
 && rm -r engine tg_durak build *.egg-info
COPY engine ./engine
COPY tg_durak ./tg_durak
# The package's own wheel replaces the stand-in's (the same name and version).
# pip and setuptools leave the virtualenv last: the bot needs neither (22 MB).
RUN /opt/durak/bin/pip wheel --no-deps --wheel-dir /wheels . \
 && /opt/durak/bin/pip install --no-index --find-links /wheels 'tg-durak[postgres,scale]' \
 && /opt/durak/bin/python -m compileall -q /opt/durak/lib \
 && /opt/durak/bin/python -m pip uninstall --yes pip setuptools

# ---- the image: the installed virtualenv and nothing of the build ----------------------------
FROM ${BASE}
# The same BASE, so the virtualenv's python3 is at the same path in both stages.
RUN useradd --system --uid 10001 --user-group --home-dir /var/lib/durak --create-home \
        --shell /usr/sbin/nologin durak
COPY --from=build /opt/durak /opt/durak
# PATH: `python -m tg_durak ...` in compose.yaml and by hand is the virtualenv's python.
# DURAK_WEB_HOST: in a container the web server (/healthz, the webhook, the Mini App) must listen
# on every interface; the port stays the bot's default 8080. The working directory is where the
# default DURAK_DB (./durak.sqlite3) lives: mount a volume there for SQLite.
ENV PATH=/opt/durak/bin:$PATH \
    PYTHONUNBUFFERED=1 \
    DURAK_WEB_HOST=0.0.0.0
WORKDIR /var/lib/durak
USER durak:durak
EXPOSE 8080
# /healthz answers 200 while the process is alive (GET, no token); urlopen raises on anything
# else, so the exit code is 1.
HEALTHCHECK --interval=30s --timeout=5s --start-period=30s --retries=3 \
    CMD ["python", "-c", "import os, urllib.request as r; r.urlopen('http://127.0.0.1:%s/healthz' % os.environ.get('DURAK_WEB_PORT', '8080'), timeout=4)"]
# The exec form: python is PID 1 and gets SIGTERM itself (docs/running.md#stopping).
STOPSIGNAL SIGTERM
CMD ["python", "-m", "tg_durak"]
