"""The deploy files say what the bot does: compose.yaml, the Dockerfile and the systemd units.

compose.yaml gives the bot only settings the README's configuration table names (read as
tests/test_docs.py reads it), the Dockerfile runs the bot in the exec form as a non-root user
with a health check, and every systemd unit keeps the exit codes that must not be restarted
(docs/running.md#exit-codes). Each reader is checked on a wrong input too.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import yaml

from tests.test_docs import README, _section, _text

ROOT = Path(__file__).resolve().parent.parent
COMPOSE = ROOT / "compose.yaml"
DOCKERFILE = ROOT / "Dockerfile"
UNITS = ROOT / "deploy" / "systemd"
PROFILES = {
    "webhook": {"postgres", "redis", "migrate", "set-webhook", "webhook", "caddy"},
    "simple": {"bot"},
}
TABLE_ROW = re.compile(r"^\|\s*`([A-Z][A-Z0-9_]*)`\s*\|", re.M)


def configuration_table(readme: str) -> set[str]:
    """The settings named in the first column of the README's "## Configuration" table."""
    return set(TABLE_ROW.findall(_section(readme, "Configuration")))


def bot_services(compose: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """The services that run the bot's image (built from this directory)."""
    return {name: s for name, s in compose["services"].items() if "build" in s}


def environment(service: dict[str, Any]) -> dict[str, str]:
    """A service's `environment:`, given as a mapping or as a list of NAME=value."""
    env = service.get("environment") or {}
    if isinstance(env, list):
        return dict(item.partition("=")[::2] for item in env)
    return {name: "" if value is None else str(value) for name, value in env.items()}


def unknown_settings(compose: dict[str, Any], known: set[str]) -> dict[str, set[str]]:
    """Per bot service, the variables it sets that are not among `known`."""
    found = {name: set(environment(s)) - known for name, s in bot_services(compose).items()}
    return {name: names for name, names in found.items() if names}


def profile_members(compose: dict[str, Any]) -> dict[str, set[str]]:
    members: dict[str, set[str]] = {}
    for name, service in compose["services"].items():
        for profile in service.get("profiles", []):
            members.setdefault(profile, set()).add(name)
    return members


def instructions(dockerfile: str) -> list[tuple[str, str]]:
    """(INSTRUCTION, arguments) in order: comments dropped, continued lines joined."""
    text = re.sub(r"^\s*#.*\n", "", dockerfile, flags=re.M)
    text = re.sub(r"\\\n", " ", text)
    found = []
    for line in text.splitlines():
        if line.strip():
            word, _, rest = line.strip().partition(" ")
            found.append((word.upper(), rest.strip()))
    return found


def final_stage(dockerfile: str) -> list[tuple[str, str]]:
    """The instructions from the last FROM on: what the image that runs is made of."""
    steps = instructions(dockerfile)
    last = max(i for i, (word, _) in enumerate(steps) if word == "FROM")
    return steps[last:]


def exec_form(arguments: str) -> bool:
    """`["python", "-m", ...]` (a JSON array of strings), not a shell line."""
    try:
        value = json.loads(arguments)
    except ValueError:
        return False
    return isinstance(value, list) and bool(value) and all(isinstance(v, str) for v in value)


def dockerfile_problems(dockerfile: str) -> list[str]:
    problems = []
    stage = final_stage(dockerfile)
    runs = [(word, args) for word, args in stage if word in ("CMD", "ENTRYPOINT")]
    if not runs:
        problems.append("no CMD or ENTRYPOINT")
    problems += [f"{word} in the shell form" for word, args in runs if not exec_form(args)]
    users = [args for word, args in stage if word == "USER"]
    if not users or users[-1].partition(":")[0] in ("root", "0"):
        problems.append("runs as root")
    checks = [args for word, args in stage if word == "HEALTHCHECK"]
    if not checks:
        problems.append("no HEALTHCHECK")
    for check in checks:
        command = re.sub(r"^(--\S+\s+)*CMD\s+", "", check)
        if not (exec_form(command) and "/healthz" in command):
            problems.append("the HEALTHCHECK is not an exec-form request to /healthz")
    return problems


def restart_prevented(unit: str) -> bool:
    """RestartPreventExitStatus=2 3 in the unit's [Service] section."""
    service = re.search(r"^\[Service\]$(.*?)(?=^\[|\Z)", unit, re.S | re.M)
    values = re.findall(r"^RestartPreventExitStatus=(.*)$", service.group(1) if service else "",
                        re.M)
    return any(set(v.split()) == {"2", "3"} for v in values)


def _compose() -> dict[str, Any]:
    loaded = yaml.safe_load(_text(COMPOSE))
    assert isinstance(loaded, dict)
    return loaded


# ---- compose.yaml ------------------------------------------------------------------------

def test_compose_has_both_profiles_and_their_services() -> None:
    members = profile_members(_compose())
    assert {p: members.get(p, set()) >= wanted for p, wanted in PROFILES.items()} == {
        "webhook": True, "simple": True}, members


def test_compose_gives_the_bot_only_settings_the_readme_names() -> None:
    compose = _compose()
    known = configuration_table(_text(README))
    assert {"BOT_TOKEN", "DURAK_DB"} <= known   # the table was read
    assert bot_services(compose).keys() >= {"migrate", "set-webhook", "webhook", "bot"}
    assert unknown_settings(compose, known) == {}


def test_compose_runs_the_jobs_before_the_workers() -> None:
    services = _compose()["services"]
    waits = services["webhook"]["depends_on"]
    assert {job: waits[job]["condition"] for job in ("migrate", "set-webhook")} == {
        "migrate": "service_completed_successfully",
        "set-webhook": "service_completed_successfully"}
    assert services["migrate"]["command"][-1] == "migrate"
    assert services["set-webhook"]["command"][-1] == "set-webhook"
    assert services["webhook"]["command"][-1] == "webhook"


def test_compose_secrets_are_files_the_service_mounts() -> None:
    """Each *_FILE points at /run/secrets/<name> of a secret that service lists."""
    compose = _compose()
    wrong = []
    for name, service in bot_services(compose).items():
        mounted = {s if isinstance(s, str) else s["source"] for s in service.get("secrets", [])}
        for variable, value in environment(service).items():
            if variable.endswith("_FILE"):
                secret = value.removeprefix("/run/secrets/")
                if secret not in mounted or secret not in compose["secrets"]:
                    wrong.append(f"{name}: {variable}={value}")
    assert wrong == []


INTERPOLATED = re.compile(r"\$\{([A-Z][A-Z0-9_]*)")
EXAMPLE_SETTING = re.compile(r"^([A-Z][A-Z0-9_]*)=", re.M)
CADDY_VARIABLE = re.compile(r"\{\$([A-Z][A-Z0-9_]*)")


def interpolated(compose_text: str) -> set[str]:
    """The variables compose fills in from .env (`${NAME}`, `${NAME:-default}`), comments left
    out."""
    return set(INTERPOLATED.findall(re.sub(r"#.*", "", compose_text)))


def test_env_example_lists_exactly_what_compose_fills_in() -> None:
    """deploy/env.example is the .env an operator copies: every ${...} compose.yaml reads is in
    it, and it holds nothing compose does not read."""
    wanted = interpolated(_text(COMPOSE))
    assert {"DURAK_DOMAIN", "DURAK_IMAGE"} <= wanted
    assert set(EXAMPLE_SETTING.findall(_text(ROOT / "deploy" / "env.example"))) == wanted


def test_caddy_is_given_what_the_caddyfile_reads() -> None:
    caddyfile = re.sub(r"#.*", "", _text(ROOT / "deploy" / "Caddyfile"))
    read = set(CADDY_VARIABLE.findall(caddyfile))
    assert read == {"DURAK_DOMAIN"}
    assert read <= set(environment(_compose()["services"]["caddy"]))


def test_self_check_interpolations_are_read_outside_comments() -> None:
    text = "# ${IN_A_COMMENT}\nimage: ${DURAK_IMAGE:-x}  # ${NOR_HERE}\nenv: {A: ${DURAK_DOMAIN}}\n"
    assert interpolated(text) == {"DURAK_IMAGE", "DURAK_DOMAIN"}


# ---- the Dockerfile ----------------------------------------------------------------------

def test_the_dockerfile_runs_the_bot_in_the_exec_form_unprivileged_and_checked() -> None:
    dockerfile = _text(DOCKERFILE)
    assert dockerfile_problems(dockerfile) == []
    assert ("ARG", "BASE=python:3.11-slim") in instructions(dockerfile)
    assert len([w for w, _ in instructions(dockerfile) if w == "FROM"]) >= 2   # multi-stage


# ---- systemd -----------------------------------------------------------------------------

def test_every_systemd_unit_leaves_exit_codes_2_and_3_alone() -> None:
    units = {p.name: _text(p) for p in sorted(UNITS.glob("*.service"))}
    assert set(units) == {"durak.service", "durak-webhook@.service", "durak-migrate.service"}
    assert [name for name, unit in units.items() if not restart_prevented(unit)] == []


# ---- the checkers can fail ---------------------------------------------------------------

def test_self_check_a_setting_the_readme_does_not_name_is_found() -> None:
    readme = ("## Configuration\n\n| variable | meaning |\n| --- | --- |\n"
              "| `BOT_TOKEN` | the token |\n| `DURAK_DB` | the database |\n\n## Next\n"
              "| `NOT_IN_THE_TABLE` | another table |\n")
    known = configuration_table(readme)
    assert known == {"BOT_TOKEN", "DURAK_DB"}
    compose = yaml.safe_load("""
services:
  good: {build: ., environment: {BOT_TOKEN: x, DURAK_DB: y}}
  listed: {build: ., environment: [BOT_TOKEN=x, DURAK_DB_PATH=y]}
  wrong: {build: ., environment: {DURAK_DATABASE: x}}
  other: {image: postgres, environment: {POSTGRES_DB: durak}}
""")
    assert unknown_settings(compose, known) == {"listed": {"DURAK_DB_PATH"},
                                                "wrong": {"DURAK_DATABASE"}}


def test_self_check_the_dockerfile_reader_sees_each_mistake() -> None:
    good = ('FROM python AS build\nUSER root\nFROM python\n# CMD python -m x\nUSER durak:durak\n'
            'HEALTHCHECK --interval=30s \\\n    CMD ["python", "-c", "get(\'/healthz\')"]\n'
            'CMD ["python", "-m", "tg_durak"]\n')
    assert dockerfile_problems(good) == []
    shell = good.replace('CMD ["python", "-m", "tg_durak"]', "CMD python -m tg_durak")
    assert dockerfile_problems(shell) == ["CMD in the shell form"]
    root = good.replace("USER durak:durak\n", "")   # the build stage's USER does not count
    assert dockerfile_problems(root) == ["runs as root"]
    unchecked = re.sub(r"HEALTHCHECK.*?\]\n", "", good, flags=re.S)
    assert dockerfile_problems(unchecked) == ["no HEALTHCHECK"]


def test_self_check_restart_prevention_is_read_from_the_service_section() -> None:
    assert restart_prevented("[Service]\nRestart=on-failure\nRestartPreventExitStatus=2 3\n")
    assert not restart_prevented("[Service]\nRestartPreventExitStatus=2\n")
    assert not restart_prevented("[Unit]\nRestartPreventExitStatus=2 3\n[Service]\nType=exec\n")
