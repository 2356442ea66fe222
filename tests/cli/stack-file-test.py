#!/usr/bin/env python3
"""Stack files: `inspect --format json` in the "container", `--stack FILE` on a "host".

For each fixture environment:
  - the inspect document is valid against data/inspect.schema.json (a small
    structural checker below: type, const, pattern, required, properties,
    additionalProperties, items - the keywords the schema uses; an unknown
    keyword fails the test so the checker cannot silently skip one);
  - inspect --stack FILE --format json prints the same document back (nothing is
    lost or invented on the way);
  - for every requirements file, `check` and `plan` (--no-index) give the same exit
    status, stdout and stderr with --stack FILE and no venv, no RR_SYSROOT,
    no ROCM_PATH, as with the live venv.
Then the stack file's failure modes: another schema, not JSON, a wrong type, --stack
with verify/install or with --venv."""
import glob
import json
import os
import re
import subprocess
import sys
import tempfile

src = os.environ["RR_SRCDIR"]
exe = os.path.join(os.environ["RR_BUILDDIR"], "src", "cli", "rocm-resolve")
venvs = os.path.join(src, "fixtures", "venvs")

# (fixture, sysroot or None)
ENVS = [("rocm72", "sysroot-rocm72"), ("pytorch-rocm64", None), ("pytorch-rocm64", "sysroot-rocm64"),
        ("bridged", "sysroot-rocm72"), ("clash", None), ("rocm-source", None),
        ("sysroot-conda/opt/conda/envs/py_3.10", None), ("syssite", "sysroot-conda"),
        ("sysroot-ngc/usr", "sysroot-ngc")]
INPUTS = (["demo/requirements.txt"] +
          sorted(os.path.relpath(p, src) for p in glob.glob(os.path.join(src, "fixtures/requirements/*"))) +
          sorted(os.path.relpath(p, src) for p in glob.glob(os.path.join(src, "tests/cli/inputs/*.txt"))))

failures = []


def fail(msg):
    failures.append(msg)
    print("FAIL:", msg)


def base_env():
    env = dict(os.environ)
    for k in ("VIRTUAL_ENV", "CONDA_PREFIX", "RR_SYSROOT", "ROCM_PATH", "PIP_CONSTRAINT"):
        env.pop(k, None)
    return env


def run(args, env, cwd=src):
    r = subprocess.run([exe] + args, capture_output=True, env=env, cwd=cwd, timeout=60)
    return r.returncode, r.stdout.decode(), r.stderr.decode()


TYPES = {"object": dict, "array": list, "string": str, "boolean": bool, "null": type(None),
         "integer": int, "number": (int, float)}
KNOWN = {"$schema", "$id", "title", "description", "type", "const", "pattern", "required",
         "properties", "additionalProperties", "items", "enum", "minimum", "minItems",
         "maxItems", "$defs", "$ref"}


def validate(schema, doc, where="$", root=None):
    root = root or schema
    unknown = set(schema) - KNOWN
    if unknown:
        fail(f"schema checker does not know {sorted(unknown)} at {where}")
    if "$ref" in schema:  # local references only: "#/$defs/NAME"
        target = root
        for part in schema["$ref"].lstrip("#/").split("/"):
            target = target[part]
        validate(target, doc, where, root)
    if "type" in schema:
        types = schema["type"] if isinstance(schema["type"], list) else [schema["type"]]
        ok = any(isinstance(doc, TYPES[t]) and not (t != "boolean" and isinstance(doc, bool))
                 for t in types)
        if not ok:
            fail(f"{where}: {doc!r} is not of type {types}")
            return
    if "const" in schema and doc != schema["const"]:
        fail(f"{where}: {doc!r} is not {schema['const']!r}")
    if "pattern" in schema and isinstance(doc, str) and not re.search(schema["pattern"], doc):
        fail(f"{where}: {doc!r} does not match {schema['pattern']}")
    if "enum" in schema and doc not in schema["enum"]:
        fail(f"{where}: {doc!r} is not one of {schema['enum']}")
    if "minimum" in schema and isinstance(doc, (int, float)) and doc < schema["minimum"]:
        fail(f"{where}: {doc!r} is below {schema['minimum']}")
    if isinstance(doc, list) and not schema.get("minItems", 0) <= len(doc) <= schema.get("maxItems", len(doc)):
        fail(f"{where}: {len(doc)} items, not {schema.get('minItems', 0)}..{schema.get('maxItems')}")
    if isinstance(doc, dict):
        for k in schema.get("required", []):
            if k not in doc:
                fail(f"{where}: required '{k}' missing")
        props = schema.get("properties", {})
        for k, v in doc.items():
            if k in props:
                validate(props[k], v, f"{where}.{k}", root)
            elif schema.get("additionalProperties") is False:
                fail(f"{where}: '{k}' is not in the schema")
            elif isinstance(schema.get("additionalProperties"), dict):
                validate(schema["additionalProperties"], v, f"{where}.{k}", root)
    if isinstance(doc, list) and "items" in schema:
        for i, v in enumerate(doc):
            validate(schema["items"], v, f"{where}[{i}]", root)


def main():
    schema = json.load(open(os.path.join(src, "data", "inspect.schema.json")))
    tmp = tempfile.mkdtemp(prefix="rr-stack-file-")
    host = base_env()
    host["XDG_CACHE_HOME"] = os.path.join(tmp, "cache")
    ncompared = 0
    for name, sysroot in ENVS:
        container = dict(host)
        if sysroot:
            container["RR_SYSROOT"] = os.path.join(venvs, sysroot)
        venv = os.path.join(venvs, name)
        rc, out, err = run(["inspect", "--format", "json", "--venv", venv], container)
        if rc != 0:
            fail(f"inspect {name}: exit {rc}: {err}")
            continue
        doc = json.loads(out)
        validate(schema, doc, f"{name}")
        snap = os.path.join(tmp, f"{name.replace('/', '_')}-{sysroot}.json")
        with open(snap, "w") as f:
            f.write(out)
        # read back on the "host", from another directory
        rc2, out2, err2 = run(["inspect", "--format", "json", "--stack", snap], host, cwd=tmp)
        if (rc2, out2) != (0, out):
            fail(f"inspect --stack {name}: exit {rc2}, document differs: {err2}")
        for inp in INPUTS:
            for cmd in (["check"], ["plan"], ["plan", "--format", "json"]):
                live = run(cmd + ["--no-index", "--venv", venv, inp], container)
                snapped = run(cmd + ["--no-index", "--stack", snap, inp], host)
                ncompared += 1
                if live != snapped:
                    fail(f"{' '.join(cmd)} {inp} on {name} (sysroot {sysroot}): live "
                         f"{live[0]} vs stack file {snapped[0]}\n--- live\n{live[1]}{live[2]}"
                         f"--- stack file\n{snapped[1]}{snapped[2]}")
    # the round trip must reach the verdicts: at least one file breaks the stack
    snap72 = os.path.join(tmp, "rocm72-sysroot-rocm72.json")
    rc, _, _ = run(["check", "--no-index", "--stack", snap72, "demo/requirements.txt"], host)
    if rc != 1:
        fail(f"check --stack on the demo file: exit {rc}, expected 1 (it breaks the stack)")

    # failure modes: a clear message, exit 2
    doc = json.load(open(snap72))

    def bad(mutate, expect, label):
        d = json.loads(json.dumps(doc))
        mutate(d)
        p = os.path.join(tmp, "bad.json")
        with open(p, "w") as f:
            f.write(d if isinstance(d, str) else json.dumps(d))
        rc, out, err = run(["check", "--no-index", "--stack", p, "demo/requirements.txt"], host)
        if rc != 2 or expect not in err or out:
            fail(f"{label}: exit {rc}, stderr {err!r}, expected exit 2 with '{expect}'")

    bad(lambda d: d.update(schema=4), "has schema 4, newer than this rocm-resolve", "newer schema")
    bad(lambda d: d.update(schema=2), "written by an older rocm-resolve", "older schema")
    bad(lambda d: d.pop("schema"), "is no `rocm-resolve inspect --format json` document", "no schema")
    bad(lambda d: d["distributions"][3].update(requires_dist="torch"),
        "distributions[3].requires_dist must be an array of strings", "wrong type")
    bad(lambda d: d["distributions"][0].update(name=None), "distributions[0].name must be a string",
        "null name")
    bad(lambda d: d["markers"].update(sys_platform=3), "markers.sys_platform must be a string",
        "marker type")
    bad(lambda d: d["distributions"].append(dict(d["distributions"][0])), "listed twice",
        "duplicate dist")
    p = os.path.join(tmp, "notjson.json")
    with open(p, "w") as f:
        f.write('{"schema": 2,\n  "venv": }\n')
    rc, out, err = run(["check", "--no-index", "--stack", p, "demo/requirements.txt"], host)
    if rc != 2 or f"{p}:2:" not in err or "not valid JSON" not in err:
        fail(f"not JSON: exit {rc}, stderr {err!r}")
    rc, out, err = run(["check", "--no-index", "--stack", os.path.join(tmp, "nonexistent.json"),
                        "demo/requirements.txt"], host)
    if rc != 2 or "cannot open stack file" not in err:
        fail(f"missing stack file: exit {rc}, stderr {err!r}")
    for cmd in ("verify", "install"):
        args = [cmd, "--stack", snap72] + (["demo/requirements.txt"] if cmd == "install" else [])
        rc, out, err = run(args, host)
        if rc != 2 or f"{cmd} takes no option '--stack'" not in err:
            fail(f"{cmd} --stack: exit {rc}, stderr {err!r}")
    rc, out, err = run(["check", "--stack", snap72, "--venv", os.path.join(venvs, "rocm72"),
                        "demo/requirements.txt"], host)
    if rc != 2 or "--venv and --stack" not in err:
        fail(f"--stack with --venv: exit {rc}, stderr {err!r}")

    # issue 19 item 7: a password in a direct URL of the file (written by hand, or by an
    # older version) is redacted as a live venv's is: never printed by inspect, nor in the
    # plan's or check's JSON (the old reader kept it as it was)
    d = json.loads(json.dumps(doc))
    for dist in d["distributions"]:
        if dist["name"] == "torch":
            dist["direct_url"] = "https://alice:s3cretpw@repo.example/torch-2.9.1%2Brocm7.2.0-cp312-cp312-linux_x86_64.whl"
        if dist["name"] == "apex":
            dist["direct_url"] = "https://ghp_s3cretTOKEN@repo.example/apex.whl"
    cred = os.path.join(tmp, "cred.json")
    with open(cred, "w") as f:
        json.dump(d, f)
    for args in (["inspect", "--stack", cred], ["inspect", "--format", "json", "--stack", cred],
                 ["plan", "--no-index", "--format", "json", "--stack", cred, "demo/requirements.txt"],
                 ["check", "--no-index", "--format", "json", "--stack", cred, "demo/requirements.txt"]):
        rc, out, err = run(args, host)
        if "s3cret" in out + err or rc not in (0, 1):
            fail(f"{' '.join(args[:3])}: a stack file's direct_url password printed (exit {rc}):\n{out}{err}")
        elif "alice:****@repo.example" not in out:
            fail(f"{' '.join(args[:3])}: the redacted direct URL is not shown:\n{out}")

    # issue 14 item 6: the pip constraint is a fact the stack file and inspect carry; a URL
    # in it (a line 'pkg @ https://user:pw@...', or PIP_CONSTRAINT naming a URL, which pip
    # accepts) keeps its password out of both, live and read back from a file
    pc = os.path.join(tmp, "pc.txt")
    with open(pc, "w") as f:
        f.write("numpy==2.2.6\nmypkg @ https://carl:c0nstrPW@files.example/mypkg-1.0-py3-none-any.whl\n")
    venv72 = os.path.join(venvs, "rocm72")
    live = dict(host, RR_SYSROOT=os.path.join(venvs, "sysroot-rocm72"),
                PIP_CONSTRAINT=f"{pc} https://dan:envPW@c.example/c.txt")
    rc, out, err = run(["inspect", "--format", "json", "--venv", venv72], live)
    doc_pc = json.loads(out) if rc == 0 else {}
    for args, env in ((["inspect", "--venv", venv72], live),
                      (["inspect", "--format", "json", "--venv", venv72], live)):
        rc, out, err = run(args, env)
        if "c0nstrPW" in out + err or "envPW" in out + err or rc != 0:
            fail(f"{' '.join(args[:3])}: a pip constraint's password printed (exit {rc}):\n{out}{err}")
        elif "dan:****@c.example" not in out:
            fail(f"{' '.join(args[:3])}: the redacted constraint URL is not shown:\n{out}")
    if "carl:****@files.example" not in json.dumps(doc_pc.get("pip_constraints")):
        fail(f"the constraint line is not kept, redacted: {doc_pc.get('pip_constraints')}")
    d = json.loads(json.dumps(doc))
    d["pip_constraint"] = "https://dan:envPW@c.example/c.txt"
    d["pip_constraints"] = [{"file": "https://dan:envPW@c.example/c.txt", "line": 1,
                             "requirement": "mypkg @ https://carl:c0nstrPW@files.example/m.whl"}]
    with open(cred, "w") as f:
        json.dump(d, f)
    for args in (["inspect", "--stack", cred], ["inspect", "--format", "json", "--stack", cred]):
        rc, out, err = run(args, host)
        if "c0nstrPW" in out + err or "envPW" in out + err or rc != 0:
            fail(f"{' '.join(args[:3])}: a stack file's pip constraint password printed "
                 f"(exit {rc}):\n{out}{err}")

    print(f"{len(ENVS)} environments, {ncompared} live/stack-file comparisons")
    if failures:
        print(f"{len(failures)} failures")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
