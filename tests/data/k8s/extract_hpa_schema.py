#!/usr/bin/env python3
"""Extract the HorizontalPodAutoscaler definitions from Kubernetes' OpenAPI spec.

usage: extract_hpa_schema.py SWAGGER_JSON > hpa-v2beta2.schema.json

SWAGGER_JSON is api/openapi-spec/swagger.json of the Kubernetes source tree
(Apache-2.0). tests/data/k8s/README.md names the tarball and version the
committed schema came from. Kept: io.k8s.api.autoscaling.v2beta2.HorizontalPodAutoscaler
and every definition it refers to, unchanged except for two things a
dry-run validation would enforce and the bare spec does not say as schema:
  - every object definition with properties gets additionalProperties: false
    (kubectl's strict field validation rejects unknown fields);
  - Quantity gets a pattern written from the grammar in its own description.
"""
import json
import sys

ROOT = "io.k8s.api.autoscaling.v2beta2.HorizontalPodAutoscaler"
QUANTITY = "io.k8s.apimachinery.pkg.api.resource.Quantity"
# <signedNumber><suffix>, suffix binarySI | decimalSI | decimalExponent
QUANTITY_PATTERN = (r"^[+-]?([0-9]+(\.[0-9]*)?|\.[0-9]+)"
                    r"(Ki|Mi|Gi|Ti|Pi|Ei|m|k|M|G|T|P|E|[eE][+-]?[0-9]+)?$")


def refs(node):
    if isinstance(node, dict):
        for k, v in node.items():
            if k == "$ref":
                yield v.rsplit("/", 1)[1]
            else:
                yield from refs(v)
    elif isinstance(node, list):
        for v in node:
            yield from refs(v)


def strip(node):
    """Drops the prose (descriptions): the schema keeps structure only."""
    if isinstance(node, dict):
        return {k: strip(v) for k, v in node.items() if k != "description"}
    if isinstance(node, list):
        return [strip(v) for v in node]
    return node


def main():
    with open(sys.argv[1], encoding="utf-8") as f:
        defs = json.load(f)["definitions"]
    keep, todo = {}, [ROOT]
    while todo:
        name = todo.pop()
        if name in keep:
            continue
        keep[name] = strip(defs[name])
        todo.extend(refs(keep[name]))
    for d in keep.values():
        if d.get("type") == "object" and "properties" in d:
            d["additionalProperties"] = False
    keep[QUANTITY]["pattern"] = QUANTITY_PATTERN
    out = {
        "$schema": "http://json-schema.org/draft-07/schema#",
        "title": ROOT,
        "$comment": "extracted by tests/data/k8s/extract_hpa_schema.py from Kubernetes "
                    "api/openapi-spec/swagger.json (Apache-2.0); provenance in README.md",
        "$ref": "#/definitions/" + ROOT,
        "definitions": dict(sorted(keep.items())),
    }
    json.dump(out, sys.stdout, indent=1, sort_keys=False)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
