#!/usr/bin/env python3
"""Checks the operations files an SRE copies out of Dashboards/: alert rules, their tests and runbooks, and Grafana's
provisioning. promtool checks the rules' syntax and runs their tests (scripts/test.sh); this checks what it cannot:

- every alert in Dashboards/alerts/*.rules.yml has labels.severity (critical or warning), annotations.summary,
  annotations.description and annotations.runbook_url; the runbook_url names a file of the repository and a heading
  in it whose anchor is the alert's name in lower case; every alert heading of a runbook is an alert;
- every alert has, in a Dashboards/alerts/*.test.yml that loads its rules file, a case where it fires and a case
  where it stays quiet;
- every `attestguard_*` metric the rules and the runbooks name is spelled in Sources/ (a histogram with its
  _bucket, _sum or _count suffix), and every `code` label value a rule matches is a registered error code;
- Dashboards/provisioning/ parses as Grafana provisioning: the dashboard provider's path is where
  Dashboards/README.md mounts the Dashboards folder, that folder holds the dashboards (and no other JSON), and the
  provisioning path README.md gives Grafana is Dashboards/provisioning; every data source reference of every
  dashboard resolves (through its `datasource` variable's default) to a provisioned data source of the same uid
  and type, so the dashboards load on it with no click.

Needs PyYAML (Debian: python3-yaml; scripts/test.sh installs it): when the `python3` running it has none (a pyenv or
venv Python), it runs itself again with the system's /usr/bin/python3. Exit status 1 with one line per problem.
    scripts/check-operations.py
"""
import json
import os
import pathlib
import re
import sys

try:
    import yaml
except ImportError:
    SYSTEM_PYTHON = "/usr/bin/python3"
    if (os.access(SYSTEM_PYTHON, os.X_OK) and os.path.realpath(sys.executable) != os.path.realpath(SYSTEM_PYTHON)
            and not os.environ.get("CHECK_OPERATIONS_SYSTEM_PYTHON")):
        os.environ["CHECK_OPERATIONS_SYSTEM_PYTHON"] = "1"
        os.execv(SYSTEM_PYTHON, [SYSTEM_PYTHON, os.path.abspath(__file__), *sys.argv[1:]])
    print("check-operations: PyYAML is missing: apt-get install python3-yaml (scripts/test.sh installs it)",
          file=sys.stderr)
    sys.exit(1)

root = pathlib.Path(__file__).resolve().parent.parent
DASHBOARDS = root / "Dashboards"
ALERTS = DASHBOARDS / "alerts"
PROVISIONING = DASHBOARDS / "provisioning"
SOURCES = root / "Sources"
ERROR_CODES = SOURCES / "AttestVocabulary" / "ErrorCode.swift"
SEVERITIES = {"critical", "warning"}
HISTOGRAM_SUFFIXES = ("_bucket", "_sum", "_count")

problems = []


def problem(where, message):
    problems.append(f"{where}: {message}")


def relative(path):
    try:
        return path.resolve().relative_to(root)
    except ValueError:
        return path


def load_yaml(path):
    try:
        return yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError) as error:
        problem(relative(path), "not YAML: " + re.sub(r"\s+", " ", str(error)))
        return None


def slug(heading):
    """The anchor a Markdown renderer (GitHub's rule) gives a heading."""
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return text.replace(" ", "-")


def strip_strings(expr):
    return re.sub(r'"(?:[^"\\]|\\.)*"', '""', expr)


# --- what Sources/ defines ------------------------------------------------------------------------------------------
source_text = "\n".join(p.read_text(encoding="utf-8") for p in sorted(SOURCES.rglob("*.swift")))
spelled = set(re.findall(r'"(attestguard_[a-z0-9_]+)"', source_text))
if not spelled:
    problem(relative(SOURCES), 'no "attestguard_..." literal found; moved?')
error_codes = set(re.findall(r'\bcase \w+ = "([a-z0-9_]+)"', ERROR_CODES.read_text(encoding="utf-8"))) \
    if ERROR_CODES.exists() else set()
if not error_codes:
    problem(relative(ERROR_CODES), "no error codes found (`case name = \"code\"`); moved?")


def check_metric(where, name, consequence="the alert would never fire"):
    if name in spelled or name in error_codes:
        return
    for suffix in HISTOGRAM_SUFFIXES:
        if name.endswith(suffix) and name[: -len(suffix)] in spelled:
            return
    problem(where, f"{name} is not spelled in Sources/ (a renamed or misspelled metric: {consequence})")


# --- rules ----------------------------------------------------------------------------------------------------------
alerts = {}  # name -> (rules file, rule)
rule_files = sorted(ALERTS.glob("*.rules.yml"))
if not rule_files:
    problem(relative(ALERTS), "no *.rules.yml")
for path in rule_files:
    document = load_yaml(path)
    if document is None:
        continue
    groups = document.get("groups") if isinstance(document, dict) else None
    if not isinstance(groups, list) or not groups:
        problem(relative(path), "no `groups:` list")
        continue
    for group in groups:
        for rule in group.get("rules") or []:
            if "alert" not in rule:
                continue
            name = rule["alert"]
            where = f"{relative(path)}: alert {name}"
            if name in alerts:
                problem(where, f"defined twice (also in {relative(alerts[name][0])})")
            alerts[name] = (path, rule)
            labels = rule.get("labels") or {}
            annotations = rule.get("annotations") or {}
            if labels.get("severity") not in SEVERITIES:
                problem(where, f"labels.severity is {labels.get('severity')!r}, not one of {sorted(SEVERITIES)}")
            for key in ("summary", "description", "runbook_url"):
                if not str(annotations.get(key) or "").strip():
                    problem(where, f"no annotations.{key}")
            expr = str(rule.get("expr") or "")
            for match in re.finditer(r"\battestguard_[a-z0-9_]+", strip_strings(expr)):
                check_metric(where, match.group(0))
            for operator, value in re.findall(r'\bcode\s*(=|!=)\s*"([^"]*)"', expr):
                if value not in error_codes:
                    problem(where, f'code{operator}"{value}" is not a registered error code ({relative(ERROR_CODES)})')

# --- runbooks -------------------------------------------------------------------------------------------------------
runbooks = {}  # repository path -> {anchor: heading}
for name, (path, rule) in sorted(alerts.items()):
    where = f"{relative(path)}: alert {name}"
    url = str((rule.get("annotations") or {}).get("runbook_url") or "")
    if not url:
        continue
    if "://" in url or url.startswith("/"):
        problem(where, f"runbook_url {url!r} is not a path relative to the repository root")
        continue
    file, _, anchor = url.partition("#")
    document = root / file
    if not document.is_file():
        problem(where, f"runbook_url {url!r}: {file} does not exist")
        continue
    if file not in runbooks:
        headings = re.findall(r"^#{1,6}\s+(.+?)\s*#*\s*$", document.read_text(encoding="utf-8"), re.M)
        runbooks[file] = {slug(h): h for h in headings}
    if anchor != name.lower():
        problem(where, f"runbook_url {url!r}: the anchor should be #{name.lower()} (its own section)")
    elif anchor not in runbooks[file]:
        problem(where, f"runbook_url {url!r}: {file} has no heading `## {name}`")
for file, anchors in sorted(runbooks.items()):
    text = (root / file).read_text(encoding="utf-8")
    for anchor, heading in anchors.items():
        if heading.startswith("AttestGuard") and heading not in alerts:
            problem(file, f"section `{heading}` is the runbook of no alert in {relative(ALERTS)}")
    for match in re.finditer(r"\battestguard_[a-z0-9_]+", text):
        check_metric(file, match.group(0), "the runbook's query would find nothing")

# --- rule tests -----------------------------------------------------------------------------------------------------
firing, quiet = {}, {}
test_files = sorted(ALERTS.glob("*.test.yml"))
loaded = set()
for path in test_files:
    document = load_yaml(path)
    if not isinstance(document, dict):
        continue
    for name in document.get("rule_files") or []:
        target = (path.parent / name).resolve()
        if not target.is_file():
            problem(relative(path), f"rule_files names {name}, which does not exist")
        loaded.add(target)
    for index, test in enumerate(document.get("tests") or []):
        for case in test.get("alert_rule_test") or []:
            name = case.get("alertname")
            where = f"{relative(path)}: test {test.get('name') or index + 1!r}"
            if name not in alerts:
                problem(where, f"tests {name!r}, which is no alert")
            (firing if case.get("exp_alerts") else quiet).setdefault(name, where)
for path in rule_files:
    if path.resolve() not in loaded:
        problem(relative(path), f"no {relative(ALERTS)}/*.test.yml loads it in rule_files")
for name, (path, _) in sorted(alerts.items()):
    if name not in firing:
        problem(f"{relative(path)}: alert {name}", "no promtool test case where it fires (exp_alerts not empty)")
    if name not in quiet:
        problem(f"{relative(path)}: alert {name}", "no promtool test case where it stays quiet (exp_alerts: [])")

# --- Grafana provisioning -------------------------------------------------------------------------------------------
readme_path = DASHBOARDS / "README.md"
readme = readme_path.read_text(encoding="utf-8") if readme_path.exists() else ""
# Where the commands in Dashboards/README.md put this folder: `-v "$PWD/Dashboards:/path"`, `cp -rT Dashboards /path`.
mounts = set(re.findall(r'Dashboards:(/[^\s:"\']+)', readme))
mounts |= set(re.findall(r'cp -rT Dashboards/? (/\S+)', readme))
if len(mounts) != 1:
    problem(relative(readme_path), f"should mount and copy the Dashboards folder at one path (`-v \"$PWD/Dashboards:"
                                   f"/path\"`, `cp -rT Dashboards /path`); found {sorted(mounts) or 'none'}")
mount = next(iter(mounts)) if len(mounts) == 1 else None

datasources = {}  # uid -> (file, entry)
for path in sorted((PROVISIONING / "datasources").glob("*.y*ml")):
    document = load_yaml(path)
    if not isinstance(document, dict):
        continue
    if document.get("apiVersion") != 1:
        problem(relative(path), "apiVersion is not 1")
    for entry in document.get("datasources") or []:
        where = f"{relative(path)}: data source {entry.get('name')!r}"
        for key in ("name", "uid", "type", "url"):
            if not str(entry.get(key) or "").strip():
                problem(where, f"no {key}")
        if entry.get("uid") in datasources:
            problem(where, f"uid {entry['uid']!r} is provisioned twice")
        datasources[entry.get("uid")] = (path, entry)
if not datasources:
    problem(relative(PROVISIONING / "datasources"), "no data source provisioned (*.yaml with `datasources:`)")

dashboard_dirs = []
provider_files = sorted((PROVISIONING / "dashboards").glob("*.y*ml"))
if not provider_files:
    problem(relative(PROVISIONING / "dashboards"), "no dashboard provider provisioned (*.yaml with `providers:`)")
for path in provider_files:
    document = load_yaml(path)
    if not isinstance(document, dict):
        continue
    if document.get("apiVersion") != 1:
        problem(relative(path), "apiVersion is not 1")
    providers = document.get("providers") or []
    if not providers:
        problem(relative(path), "no `providers:`")
    for provider in providers:
        where = f"{relative(path)}: provider {provider.get('name')!r}"
        if provider.get("type", "file") != "file":
            problem(where, f"type {provider.get('type')!r}, not file")
            continue
        target = str((provider.get("options") or {}).get("path") or "")
        if not target:
            problem(where, "no options.path")
        elif mount and target != mount and not target.startswith(mount + "/"):
            problem(where, f"options.path {target} is not inside {mount}, where {relative(readme_path)} mounts "
                           f"the Dashboards folder")
        elif mount:
            folder = DASHBOARDS / target[len(mount):].lstrip("/")
            if not folder.is_dir():
                problem(where, f"options.path {target} is {relative(folder)} in the repository, which does not "
                               f"exist")
            else:
                dashboard_dirs.append((where, folder))
if mount:
    wanted = f"GF_PATHS_PROVISIONING={mount}/provisioning"
    if wanted not in readme:
        problem(relative(readme_path), f"should give Grafana `{wanted}` (the Dashboards/provisioning folder)")

DATASOURCE_VARIABLE = re.compile(r"^\$\{(\w+)(?::\w+)?\}$|^\$(\w+)$|^\[\[(\w+)\]\]$")
BUILT_IN = {"-- Grafana --", "grafana", "-- Dashboard --", "-- Mixed --"}


def datasource_nodes(node, trail=()):
    """(where, reference, whether its owner queries) for every `datasource` key below a dashboard's top level."""
    if isinstance(node, dict):
        label = node.get("title") or node.get("name") or (f"query {node['refId']}" if node.get("refId") else None)
        trail = trail + (repr(label),) if label else trail
        if "datasource" in node:
            yield " > ".join(trail), node["datasource"], bool(node.get("targets") or node.get("expr"))
        for key, value in node.items():
            if key != "datasource" and isinstance(value, (dict, list)):
                yield from datasource_nodes(value, trail)
    elif isinstance(node, list):
        for value in node:
            yield from datasource_nodes(value, trail)


by_name = {entry.get("name"): uid for uid, (_, entry) in datasources.items()}
dashboards = 0
for where_provider, folder in (dashboard_dirs if datasources else []):
    for path in sorted(folder.rglob("*.json")):
        name = relative(path)
        try:
            dashboard = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as error:
            problem(name, f"not JSON, yet Grafana loads every *.json below {relative(folder)}: {error}")
            continue
        if not isinstance(dashboard, dict) or "panels" not in dashboard or not dashboard.get("uid"):
            problem(name, f"not a dashboard with a uid, yet Grafana loads every *.json below {relative(folder)}")
            continue
        if path.parent != DASHBOARDS:
            problem(name, "a dashboard outside Dashboards/ itself, which scripts/check-dashboards.py does not check")
        dashboards += 1
        if dashboard.get("__inputs"):
            problem(name, "has __inputs (${DS_...} import inputs): provisioning does not fill them in; reference a "
                          "`datasource` variable instead")
        variables = {v.get("name"): v for v in (dashboard.get("templating") or {}).get("list", [])
                     if v.get("type") == "datasource"}
        broken = set()  # variables already reported: the references through them are not reported again
        for variable in variables.values():
            current = variable.get("current") or {}
            uid = current.get("value")
            where = f"{name}: variable {variable.get('name')!r}"
            if uid not in datasources:
                problem(where, f"defaults to {uid!r}, not a provisioned data source uid "
                               f"({', '.join(map(str, datasources))}): the dashboard would open on whichever data "
                               f"source Grafana lists first")
                broken.add(variable.get("name"))
                continue
            entry = datasources[uid][1]
            if variable.get("query") != entry.get("type"):
                problem(where, f"lists {variable.get('query')!r} data sources, but {uid} is of type "
                               f"{entry.get('type')!r}")
                broken.add(variable.get("name"))
            if current.get("text") != entry.get("name"):
                problem(where, f"default text {current.get('text')!r} is not the provisioned name "
                               f"{entry.get('name')!r} (Grafana before 10.1 matches the default by name)")
        for where, reference, queries in datasource_nodes({k: v for k, v in dashboard.items() if k != "title"}):
            where = f"{name}: {where or 'dashboard'}"
            if reference is None:
                if queries:
                    problem(where, "no datasource: it would query the organisation's default data source, not "
                                   "the provisioned one")
                continue
            if isinstance(reference, dict):
                uid, kind = reference.get("uid"), reference.get("type")
            else:
                uid, kind = reference, None  # a legacy reference: a name or a variable
            if uid in BUILT_IN or kind == "grafana":
                continue
            match = DATASOURCE_VARIABLE.match(str(uid))
            if match:
                variable = variables.get(next(g for g in match.groups() if g))
                if variable is not None and variable.get("name") in broken:
                    continue
                if variable is None:
                    problem(where, f"datasource {uid!r} names no `datasource` variable of the dashboard")
                    continue
                uid = (variable.get("current") or {}).get("value")
                kind = kind or variable.get("query")
            elif uid in by_name and uid not in datasources:
                uid = by_name[uid]  # a legacy reference by name
            if uid not in datasources:
                problem(where, f"datasource {json.dumps(reference)} is no provisioned data source")
            elif kind and kind != datasources[uid][1].get("type"):
                problem(where, f"datasource type {kind!r}, but {uid} is provisioned as "
                               f"{datasources[uid][1].get('type')!r}")
if dashboard_dirs and datasources and not dashboards:
    problem(dashboard_dirs[0][0], "finds no dashboard JSON")

if problems:
    for line in problems:
        print(f"check-operations: {line}", file=sys.stderr)
    print(f"check-operations: {len(problems)} problem(s)", file=sys.stderr)
    sys.exit(1)
print(f"check-operations: ok ({len(alerts)} alerts with runbooks and firing and quiet tests; {dashboards} dashboards "
      f"on provisioned data source {', '.join(map(str, datasources))})")
