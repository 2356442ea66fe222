#!/usr/bin/python3
"""End-to-end truth from the real installers (issue #3 item 6).

Two real venvs hold fake but genuine ROCm builds (tests/e2e/e2elib.py): the
rocm/pytorch ROCm 7.2 image layout and the download.pytorch.org ROCm 6.4 layout
(pytorch-triton-rocm provides the `triton` module). For each case rocm-resolve
plans against the fixture index on 127.0.0.1; the plan goes to
`uv pip install --dry-run` and to the venv's `pip install --dry-run --report`, and
we judge what each says it would do:
  - nothing protected would be installed, replaced or removed,
  - no CUDA-only package (data/policy.json cuda_only) would arrive,
  - no member of the triton family would land next to the protected one,
  - every requested package that can be installed safely would be (or already is),
  - packages the plan had to strip would not be installed.
The SAME inputs go unfiltered into uv, and the damage uv would do there is
asserted too, so this test fails if the world stops being dangerous.

uv gets the --excludes file rocm-resolve writes (--uv-excludes), the way
`rocm-resolve install` calls it. pip has no such option: where the plan relies
on an exclusion, pip's answer is checked to show the known gap (see KNOWN_GAPS)."""
import os
import shutil
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import e2elib as E  # noqa: E402

TRITON_FAMILY = {"triton", "pytorch-triton", "pytorch-triton-rocm", "triton-rocm"}


class Case:
    def __init__(self, name, layout, files, want=(), stripped=(), raw_damage=(), gaps=()):
        self.name, self.layout, self.files = name, layout, files
        self.want = set(want)            # must be installed (or already present)
        self.stripped = set(stripped)    # must NOT be installed: no safe version
        self.raw_damage = set(raw_damage)  # protected/CUDA names raw uv must touch
        self.gaps = dict(gaps)           # tool -> names it is known to bring (documented gap)


CASES = [
    Case("cuda-torch-cu121", "rocm72", {
        "requirements.txt": "--extra-index-url {url}/whl/cu121/\ntorch==2.4.1+cu121\n"
                            "torchvision==0.19.1+cu121\nrequests>=2.30\neinops\n"},
        want={"requests", "einops"}, raw_damage={"torch", "torchvision"}),
    Case("torchvision-0.19.1", "rocm72", {"requirements.txt": "torchvision==0.19.1\ntqdm\n"},
         want={"tqdm"}, raw_damage={"torch", "torchvision", "nvidia-cudnn-cu12"}),
    Case("xformers-unpinned", "rocm72", {"requirements.txt": "xformers\n"}, want={"xformers"}),
    Case("vllm-0.10.1-on-rocm72", "rocm72", {"requirements.txt": "vllm==0.10.1\npsutil\n"},
         want={"psutil"}, stripped={"vllm"}, raw_damage={"torch", "torchvision", "torchaudio"}),
    Case("vllm-0.10.1-on-rocm64", "rocm64", {"requirements.txt": "vllm==0.10.1\n"},
         want={"vllm", "xformers", "transformers"}),
    Case("needs-triton-on-pytorch-triton-rocm", "rocm64", {"requirements.txt": "liger-kernel\n"},
         want={"liger-kernel"}, raw_damage={"triton"}, gaps={"pip": {"triton"}}),
    Case("transformers-torch-accelerate", "rocm72",
         {"requirements.txt": "transformers[torch]\naccelerate\n"},
         want={"transformers", "accelerate", "huggingface-hub", "tokenizers", "safetensors"}),
    Case("r-chain-c-torch", "rocm72", {
        "requirements.txt": "-r common.txt\n-c constraints.txt\npeft\n",
        "common.txt": "accelerate\n-r more/extra.txt\n",
        "more/extra.txt": "einops\nbitsandbytes\n",
        "constraints.txt": "torch==2.4.1\n"},
        want={"peft", "accelerate", "einops", "bitsandbytes"},
        raw_damage={"torch", "triton", "nvidia-cudnn-cu12"}),
]


def judge(case, v, protected, cuda_only, have, plan_text):
    """Problems with one installer's verdict on a plan."""
    probs = []
    if v.rc != 0:
        return [f"{v.tool} failed (rc {v.rc}):\n{v.log[-3000:]}"]
    gap = case.gaps.get(v.tool, set())
    touched = set(v.install) | set(v.uninstall)
    for n in sorted(touched & protected):
        probs.append(f"{v.tool} would change protected {n}: {have.get(n)} -> {v.install.get(n, 'removed')}")
    for n in sorted(touched - gap):
        if any(p.search(n) for p in cuda_only):
            probs.append(f"{v.tool} would install CUDA-only {n}=={v.install.get(n)}")
    if protected & TRITON_FAMILY:
        for n in sorted((set(v.install) & TRITON_FAMILY) - protected - gap):
            probs.append(f"{v.tool} would install {n} over the protected triton module")
    for n in sorted(case.want):
        if n not in v.install and n not in have:
            probs.append(f"{v.tool} would not install requested {n}")
    for n in sorted(case.stripped):
        if n in v.install:
            probs.append(f"{v.tool} would install {n}, which has no safe version")
    for n in sorted(gap):
        if n not in v.install:
            probs.append(f"{v.tool}: known gap closed? it no longer installs {n}; update KNOWN GAP in this test")
    return probs


def main():
    uv = E.find_uv()
    if not uv:
        E.skip("uv not found in $RR_SRCDIR/.venv-tools/bin or on PATH (./bootstrap test installs it)")
    if not os.access(E.EXE, os.X_OK):
        E.skip(f"{E.EXE} not built")
    work = tempfile.mkdtemp(prefix="rr-e2e-")
    failures = 0
    try:
        venvs = {}
        for layout in ("rocm72", "rocm64"):
            venvs[layout] = E.build_venv(os.path.join(work, f"venv-{layout}"), layout)
        cuda_only = E.cuda_only_patterns()
        with E.Index() as idx:
            url = idx.url
            for case in CASES:
                venv = venvs[case.layout]
                have = E.installed(venv)
                protected = {E.norm(n) for n, *_ in E.LAYOUTS[case.layout]["stack"]}
                cdir = os.path.join(work, case.name)
                for rel, text in case.files.items():
                    path = os.path.join(cdir, rel)
                    os.makedirs(os.path.dirname(path), exist_ok=True)
                    with open(path, "w") as fh:
                        fh.write(text.format(url=url))
                main_req = os.path.join(cdir, "requirements.txt")
                excl = os.path.join(cdir, "excludes.txt")
                r = E.rr(["--index-url", idx.simple(), "--venv", venv, "--cache-dir", os.path.join(work, "rr-cache"),
                          "--uv-excludes", excl, main_req])
                probs = []
                if r.returncode != 0 or not r.stdout.strip():
                    probs.append(f"rocm-resolve exit {r.returncode}\n{r.stderr}")
                else:
                    plan = r.stdout
                    extra = ["--excludes", excl] if os.path.exists(excl) and open(excl).read().strip() else []
                    vu = E.uv_dry_run(uv, venv, idx.simple(), plan, os.path.join(work, "uv-cache"), extra)
                    vp = E.pip_dry_run(venv, idx.simple(), plan, cdir)
                    probs += judge(case, vu, protected, cuda_only, have, plan)
                    probs += judge(case, vp, protected, cuda_only, have, plan)
                    print(f"# {case.name}: uv +{sorted(vu.install)} -{sorted(vu.uninstall)}; "
                          f"pip +{sorted(vp.install)}")
                    for n in sorted(case.gaps.get("pip", ())):
                        if n in vp.install:
                            print(f"#   KNOWN GAP: pip has no --excludes; the plan alone lets pip install {n} "
                                  f"(uv with rocm-resolve's --excludes file does not)")
                # the same inputs, unfiltered: uv must show the damage the plan prevents
                raw = E.uv_dry_run(uv, venv, idx.simple(), None, os.path.join(work, "uv-cache"), req_path=main_req)
                raw_touch = set(raw.install) | set(raw.uninstall)
                print(f"#   unfiltered uv: rc {raw.rc}, +{sorted(raw.install)} -{sorted(raw.uninstall)}")
                if case.raw_damage and raw.rc != 0:
                    probs.append(f"unfiltered uv failed instead of showing damage:\n{raw.log[-2000:]}")
                for n in sorted(case.raw_damage - raw_touch):
                    probs.append(f"unfiltered uv was expected to touch {n} (the damage the plan prevents); it did not")
                if not case.raw_damage and raw.rc == 0:
                    bad = sorted((raw_touch & protected) | {n for n in raw_touch if any(p.search(n) for p in cuda_only)})
                    if bad:
                        probs.append(f"unfiltered uv damages {bad}: add them to raw_damage of this case")
                if probs:
                    failures += 1
                    print(f"not ok - {case.name}")
                    for p in probs:
                        print("    " + p.replace("\n", "\n    "))
                    print("    plan:\n      " + (r.stdout or "").replace("\n", "\n      "))
                else:
                    print(f"ok - {case.name}")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print(f"{len(CASES) - failures}/{len(CASES)} cases passed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
