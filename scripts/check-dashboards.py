#!/usr/bin/env python3
"""Checks the Grafana dashboards in Dashboards/ against the metrics the server defines:

- every Dashboards/*.json is a dashboard: a title, a uid (unique across the files), panels with unique ids, and
  every panel (rows and text panels aside) and query reading from the templated Prometheus data source
  (a `datasource` variable of type prometheus, or a `${DS_...}` import input);
- every `attestguard_*` metric a query names is a family of the catalog, `MetricFamily(name: "...", kind: ...)` in
  Sources/AttestVocabulary/MetricFamily.swift (a histogram only as `_bucket`, `_sum` or `_count`, and only a
  histogram so); and no Swift source records a metric under a literal `label: "attestguard_..."` outside it;
- every selector of an `attestguard_*` metric honours the dashboard's `$instance` variable, when it has one;
- every metric defined in Sources appears in some dashboard, so a new metric gets a panel.

Stdlib only; run from anywhere. Exit status 1 with one line per problem.
    scripts/check-dashboards.py [--dashboards DIR] [--sources DIR]
"""
import argparse
import json
import pathlib
import re
import sys

root = pathlib.Path(__file__).resolve().parent.parent
parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
parser.add_argument("--dashboards", type=pathlib.Path, default=root / "Dashboards")
parser.add_argument("--sources", type=pathlib.Path, default=root / "Sources")
args = parser.parse_args()

HISTOGRAM_SUFFIXES = ("_bucket", "_sum", "_count")
METRIC = re.compile(r"\battestguard_[a-z_]+")
# A catalog entry: `name: "attestguard_...", kind: .counter`, also split over lines.
DEFINITION = re.compile(r'\bname:\s*"(attestguard_[a-z_]*)",\s*kind:\s*\.(counter|gauge|histogram)\b')
LITERAL_LABEL = re.compile(r'\blabel:\s*"attestguard_')


def relative(path):
    try:
        return path.resolve().relative_to(root)
    except ValueError:
        return path


def defined_metrics(sources):
    """name -> (kind, where) for every family in the catalog; a literal metric label elsewhere is a problem."""
    metrics = {}
    for path in sorted(sources.rglob("*.swift")):
        text = path.read_text(encoding="utf-8")
        for match in LITERAL_LABEL.finditer(text):
            line = text.count("\n", 0, match.start()) + 1
            problems.append(f"{relative(path)}:{line}: a literal metric label; record it as a MetricFamily's name")
        if path.name != "MetricFamily.swift":
            continue
        for match in DEFINITION.finditer(text):
            name, kind = match.groups()
            line = text.count("\n", 0, match.start()) + 1
            where = f"{relative(path)}:{line}"
            if name in metrics:
                problems.append(f"{where}: {name} is in the catalog twice (also at {metrics[name][1]})")
            if kind == "counter" and not name.endswith("_total"):
                problems.append(f"{where}: {name} is a counter; its name must end in _total")
            metrics.setdefault(name, (kind, where))
    return metrics


def flatten(panels):
    for panel in panels or []:
        yield panel
        yield from flatten(panel.get("panels"))  # a collapsed row holds its panels


def datasource_refs(dashboard):
    """How the dashboard may name its templated Prometheus data source."""
    names = [v.get("name") for v in dashboard.get("templating", {}).get("list", [])
             if v.get("type") == "datasource" and v.get("query") == "prometheus"]
    names += [i.get("name") for i in dashboard.get("__inputs", [])
              if i.get("type") == "datasource" and i.get("pluginId") == "prometheus"]
    return {form.format(n) for n in names if n for form in ("${{{}}}", "${}", "[[{}]]")}


def refers(datasource, refs):
    if isinstance(datasource, dict):
        return datasource.get("uid") in refs and datasource.get("type", "prometheus") == "prometheus"
    return datasource in refs


def selectors(expr, metric_start):
    """The `{...}` right after a metric name, or None when the name stands bare."""
    rest = expr[metric_start:]
    if not rest.startswith("{"):
        return None
    end = rest.find("}")
    return rest[1:end] if end >= 0 else None


problems = []
defined = defined_metrics(args.sources)
if not defined:
    problems.append(f"{relative(args.sources)}: no MetricFamily catalog found; wrong --sources?")
used = {}  # base metric -> first place it was seen
files = sorted(args.dashboards.glob("*.json"))
if not files:
    problems.append(f"{relative(args.dashboards)}: no *.json dashboards")
uids = {}

for path in files:
    name = relative(path)
    try:
        dashboard = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        problems.append(f"{name}: not JSON: {error}")
        continue
    if not isinstance(dashboard, dict):
        problems.append(f"{name}: not a dashboard (top level is not an object)")
        continue
    for key in ("title", "uid"):
        if not isinstance(dashboard.get(key), str) or not dashboard[key].strip():
            problems.append(f"{name}: no {key}")
    uid = dashboard.get("uid")
    if isinstance(uid, str) and uid:
        if uid in uids:
            problems.append(f"{name}: uid {uid!r} is also the uid of {uids[uid]}")
        uids.setdefault(uid, name)
    panels = list(flatten(dashboard.get("panels")))
    if not panels:
        problems.append(f"{name}: no panels")
    refs = datasource_refs(dashboard)
    if not refs:
        problems.append(f"{name}: no templated Prometheus data source (a `datasource` variable or a `${{DS_...}}` input)")
    variables = {v.get("name") for v in dashboard.get("templating", {}).get("list", [])}

    # (where, expr) for every query: panel targets, annotations, query variables.
    queries = []
    ids = {}
    for panel in panels:
        title = panel.get("title") or "(untitled)"
        where = f"{name}: panel {title!r}"
        pid = panel.get("id")
        if not isinstance(pid, int):
            problems.append(f"{where}: no numeric id")
        elif pid in ids:
            problems.append(f"{where}: id {pid} is also the id of panel {ids[pid]!r}")
        else:
            ids[pid] = title
        querying = panel.get("type") not in ("row", "text")
        if querying or "datasource" in panel:
            if not refers(panel.get("datasource"), refs):
                problems.append(f"{where}: datasource {json.dumps(panel.get('datasource'))} is not the templated "
                                f"Prometheus data source ({', '.join(sorted(refs)) or 'none defined'})")
        if querying and not panel.get("targets"):
            problems.append(f"{where}: no queries")
        for target in panel.get("targets") or []:
            if "datasource" in target and not refers(target["datasource"], refs):
                problems.append(f"{where}: query {target.get('refId')} does not use the templated data source")
            if not isinstance(target.get("expr"), str) or not target["expr"].strip():
                problems.append(f"{where}: query {target.get('refId')} has no expr")
            else:
                queries.append((where, target["expr"]))
    for annotation in dashboard.get("annotations", {}).get("list", []):
        if "expr" in annotation:
            where = f"{name}: annotation {annotation.get('name')!r}"
            if not refers(annotation.get("datasource"), refs):
                problems.append(f"{where}: does not use the templated data source")
            queries.append((where, annotation["expr"]))
    for variable in dashboard.get("templating", {}).get("list", []):
        if variable.get("type") == "query":
            query = variable.get("query")
            query = query.get("query", "") if isinstance(query, dict) else query or ""
            where = f"{name}: variable {variable.get('name')!r}"
            if not refers(variable.get("datasource"), refs):
                problems.append(f"{where}: does not use the templated data source")
            queries.append((where, query))

    for where, expr in queries:
        for match in METRIC.finditer(expr):
            metric = match.group(0)
            base = metric
            if metric not in defined:
                for suffix in HISTOGRAM_SUFFIXES:
                    if metric.endswith(suffix) and metric[: -len(suffix)] in defined:
                        base = metric[: -len(suffix)]
            if base not in defined:
                problems.append(f"{where}: {metric} is no family of the MetricFamily catalog in {relative(args.sources)}")
                continue
            kind = defined[base][0]
            if base == metric and kind == "histogram":
                problems.append(f"{where}: {metric} is a histogram ({defined[base][1]}); Prometheus has only "
                                f"{metric}_bucket, _sum and _count")
            elif base != metric and kind not in ("histogram", "unknown"):
                problems.append(f"{where}: {metric}: {base} is a {kind} ({defined[base][1]}), not a histogram")
            if "instance" in variables and not where.startswith(f"{name}: variable"):
                labels = selectors(expr, match.end())
                if labels is None or "$instance" not in labels:
                    problems.append(f"{where}: {metric} is selected without instance=~\"$instance\" "
                                    f"(the Instance picker would not apply)")
            used.setdefault(base, where)
    print(f"{name}: {len(panels)} panels, {len(queries)} queries, "
          f"{len({m.group(0) for _, e in queries for m in METRIC.finditer(e)})} attestguard_ series names")

for metric, (kind, where) in sorted(defined.items()):
    if metric not in used:
        problems.append(f"{where}: {metric} ({kind}) appears in no dashboard in {relative(args.dashboards)}; add a panel")

if problems:
    for problem in problems:
        print(f"check-dashboards: {problem}", file=sys.stderr)
    print(f"check-dashboards: {len(problems)} problem(s)", file=sys.stderr)
    sys.exit(1)
print(f"check-dashboards: ok ({len(files)} dashboards cover all {len(defined)} metrics defined in "
      f"{relative(args.sources)})")
