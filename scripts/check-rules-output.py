#!/usr/bin/env python3
"""Reads the machine output of `attestguard rules lint|test` with the tools a rule repository's CI would use.

  check-rules-output.py schema SCHEMA DOCUMENT
      Validates DOCUMENT (the `--format json` output) against SCHEMA (JSON Schema draft 2020-12, docs/schemas/)
      with jsonschema, after checking SCHEMA itself against the draft's meta-schema. Exits 1 listing every
      violation.
  check-rules-output.py junit REPORT
      Parses REPORT (the `--format junit` output) with junitparser and prints, as JSON, the totals of
      <testsuites> and, per suite, its attributes, properties and cases with their results, as a CI system reads
      them. Exits 1 when junitparser cannot read it.

Run it with the python that scripts/python-tools.sh prints (it has jsonschema and junitparser at pinned versions).
"""
import json
import sys

import jsonschema
import junitparser


def check_schema(schema_path, document_path):
    with open(schema_path, encoding="utf-8") as file:
        schema = json.load(file)
    with open(document_path, encoding="utf-8") as file:
        document = json.load(file)
    jsonschema.Draft202012Validator.check_schema(schema)
    validator = jsonschema.Draft202012Validator(schema)
    errors = sorted(validator.iter_errors(document), key=lambda error: list(error.absolute_path))
    for error in errors:
        place = "/".join(str(part) for part in error.absolute_path) or "(the document)"
        print(f"{document_path}: {place}: {error.message}", file=sys.stderr)
    if errors:
        print(f"{len(errors)} violation(s) of {schema_path}", file=sys.stderr)
        return 1
    print(f"{document_path}: valid against {schema_path}")
    return 0


def read_junit(report_path):
    try:
        report = junitparser.JUnitXml.fromfile(report_path)
    except Exception as error:  # what a CI system's reader would refuse
        print(f"{report_path}: junitparser cannot read it: {error}", file=sys.stderr)
        return 1
    if not isinstance(report, junitparser.JUnitXml):
        print(f"{report_path}: the root is not <testsuites>", file=sys.stderr)
        return 1
    suites = []
    for suite in report:
        cases = []
        for case in suite:
            results = [
                {"kind": result._tag, "message": result.message, "type": result.type, "text": result.text}
                for result in case.result
            ]
            cases.append({
                "name": case.name,
                "classname": case.classname,
                "file": case._elem.get("file"),
                "line": case._elem.get("line"),
                "time": case.time,
                "results": results,
            })
        suites.append({
            "name": suite.name,
            "tests": suite.tests,
            "failures": suite.failures,
            "errors": suite.errors,
            "skipped": suite.skipped,
            "time": suite.time,
            "properties": {prop.name: prop.value for prop in suite.properties()},
            "cases": cases,
        })
    summary = {
        "name": report._elem.get("name"),
        "tests": report.tests,
        "failures": report.failures,
        "errors": report.errors,
        "skipped": report.skipped,
        "time": report.time,
        "suites": suites,
    }
    json.dump(summary, sys.stdout, indent=2, ensure_ascii=False)
    print()
    return 0


def main(arguments):
    if len(arguments) == 3 and arguments[0] == "schema":
        return check_schema(arguments[1], arguments[2])
    if len(arguments) == 2 and arguments[0] == "junit":
        return read_junit(arguments[1])
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
