#!/usr/bin/env python3
"""The snippets of `rightsize plan --snippet` against the real API definitions.

usage: plan_snippets.py RIGHTSIZE REPO_ROOT

- hpa: validated against the HorizontalPodAutoscaler schema extracted from
  Kubernetes' own OpenAPI spec (tests/data/k8s/, README.md there says from
  which source and why it is v2beta2), strictly: an unknown field fails as
  it does under kubectl's strict validation. `kubectl apply --dry-run=client`
  is not used: it needs an API server for discovery, and none runs here.
- sagemaker: both request bodies validated with botocore's parameter
  validator against the Application Auto Scaling service model botocore
  ships (RegisterScalableTarget, PutScalingPolicy), plus the enum values the
  validator does not check.
Each half needs its Python modules (yaml + jsonschema; botocore) and says it
was skipped without them; exit 77 when both are skipped. Mutated snippets
must fail, so the test can fail.
"""
import copy
import json
import os
import subprocess
import sys

CASES = [
    ["profiles/search-rerank-daily.yaml"],
    ["profiles/search-rerank-daily.yaml", "--shape", "g5g.xlarge"],
    ["profiles/search-rerank-daily.yaml", "--lead-time", "8h"],
    ["profiles/resnet50-p3.8xlarge.yaml"],
    ["profiles/distilbert-intent-g4dn.yaml"],
]


def snippet(exe, root, args, kind):
    cmd = [exe, "plan"] + args + ["--snippet", kind]
    r = subprocess.run(cmd, cwd=root, capture_output=True, text=True, check=False)
    if r.returncode != 0:
        raise SystemExit("%s: exit %d: %s" % (" ".join(cmd), r.returncode, r.stderr))
    return r.stdout


def check_hpa(exe, root):
    try:
        import jsonschema
        import yaml
    except ImportError as e:
        print("hpa: skipped (%s)" % e)
        return None
    with open(os.path.join(root, "tests/data/k8s/hpa-v2beta2.schema.json"), encoding="utf-8") as f:
        schema = json.load(f)
    v = jsonschema.Draft7Validator(schema)
    problems = 0
    for args in CASES:
        doc = yaml.safe_load(snippet(exe, root, args, "hpa"))
        errs = [e.message for e in v.iter_errors(doc)]
        # the group and kind; autoscaling/v2 keeps v2beta2's fields (README.md)
        if doc.get("apiVersion") != "autoscaling/v2" or doc.get("kind") != "HorizontalPodAutoscaler":
            errs.append("apiVersion/kind: %s/%s" % (doc.get("apiVersion"), doc.get("kind")))
        spec = doc.get("spec", {})
        if not 1 <= spec.get("minReplicas", 1) <= spec.get("maxReplicas", 0):
            errs.append("minReplicas %s, maxReplicas %s" % (spec.get("minReplicas"),
                                                              spec.get("maxReplicas")))
        for e in errs:
            print("hpa %s: %s" % (" ".join(args), e))
        problems += len(errs)
    base = yaml.safe_load(snippet(exe, root, CASES[0], "hpa"))
    bad = []
    m = copy.deepcopy(base)
    m["spec"]["minReplica"] = 1  # a misspelt field
    bad.append(("unknown field", m))
    m = copy.deepcopy(base)
    m["spec"]["metrics"][0]["pods"]["target"]["averageValue"] = "12.5 rps"
    bad.append(("not a quantity", m))
    m = copy.deepcopy(base)
    m["spec"]["maxReplicas"] = "4"
    bad.append(("a string count", m))
    m = copy.deepcopy(base)
    del m["spec"]["scaleTargetRef"]
    bad.append(("no scaleTargetRef", m))
    for what, doc in bad:
        if v.is_valid(doc):
            print("hpa: a snippet with %s passed the schema" % what)
            problems += 1
    print("hpa: %d snippets checked against %s, %d problem(s)" %
          (len(CASES), schema["title"], problems))
    return problems


def check_sagemaker(exe, root):
    try:
        import botocore.session
        from botocore.validate import ParamValidator
    except ImportError as e:
        print("sagemaker: skipped (%s)" % e)
        return None
    model = botocore.session.get_session().get_service_model("application-autoscaling")
    validator = ParamValidator()

    def errors(doc):
        out = []
        if set(doc) != {"RegisterScalableTarget", "PutScalingPolicy"}:
            return ["top-level keys %s" % sorted(doc)]
        for op, params in doc.items():
            shape = model.operation_model(op).input_shape
            report = validator.validate(params, shape)
            if report.has_errors():
                out.append("%s: %s" % (op, report.generate_report()))
                continue
            for key in ("ServiceNamespace", "ScalableDimension", "PolicyType"):
                enum = shape.members[key].enum if key in shape.members else None
                if enum and params.get(key) not in enum:
                    out.append("%s.%s: %r not in %s" % (op, key, params.get(key), enum))
        if out:  # the types are wrong: the checks below would compare them
            return out
        cfg = doc["PutScalingPolicy"].get("TargetTrackingScalingPolicyConfiguration", {})
        metric = cfg.get("PredefinedMetricSpecification", {}).get("PredefinedMetricType")
        enum = model.shape_for("MetricType").enum
        if metric not in enum or not metric.startswith("SageMaker"):
            out.append("PredefinedMetricType %r" % metric)
        reg = doc["RegisterScalableTarget"]
        if not 0 <= reg.get("MinCapacity", -1) <= reg.get("MaxCapacity", -1):
            out.append("MinCapacity/MaxCapacity %s/%s" % (reg.get("MinCapacity"),
                                                           reg.get("MaxCapacity")))
        return out

    problems = 0
    for args in CASES:
        for e in errors(json.loads(snippet(exe, root, args, "sagemaker"))):
            print("sagemaker %s: %s" % (" ".join(args), e))
            problems += 1
    base = json.loads(snippet(exe, root, CASES[0], "sagemaker"))
    bad = []
    m = copy.deepcopy(base)
    m["RegisterScalableTarget"]["MinCapacity"] = "1"
    bad.append(("a string capacity", m))
    m = copy.deepcopy(base)
    m["PutScalingPolicy"]["TargetTrackingScalingPolicyConfiguration"]["Target"] = 1
    bad.append(("an unknown member", m))
    m = copy.deepcopy(base)
    del m["PutScalingPolicy"]["PolicyName"]
    bad.append(("no PolicyName", m))
    m = copy.deepcopy(base)
    m["RegisterScalableTarget"]["ScalableDimension"] = "sagemaker:variant:Instances"
    bad.append(("an unknown dimension", m))
    for what, doc in bad:
        if not errors(doc):
            print("sagemaker: a snippet with %s passed" % what)
            problems += 1
    print("sagemaker: %d snippets checked against botocore %s's application-autoscaling "
          "model (%s), %d problem(s)" % (len(CASES), botocore.__version__,
                                         model.api_version, problems))
    return problems


def main():
    exe, root = os.path.abspath(sys.argv[1]), sys.argv[2]
    results = [check_hpa(exe, root), check_sagemaker(exe, root)]
    if all(r is None for r in results):
        sys.exit(77)
    sys.exit(1 if any(r for r in results if r) else 0)


if __name__ == "__main__":
    main()
