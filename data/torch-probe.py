# rocm-resolve torch probe (schema 1). Run by `rocm-resolve verify` with the venv's python;
# prints exactly one JSON object on the last line of stdout. Every failure is data, not a
# traceback: the caller (src/gpu/probe.c) decides the verdict. Keys:
#   schema 1; python; hsa_override_gfx_version (str|null); visible {*_VISIBLE_DEVICES: value}
#   import_error "Type: message" when `import torch` fails (then nothing else)
#   torch_version; hip, cuda (torch.version.*, null when not that build); available;
#   device_count; arch_list; error (torch.cuda raised)
#   devices [{index, name, arch (gcnArchName or sm_XY), arch_in_list, error,
#             matmul {n, max_abs_err (null for NaN/inf), tol, ok}}]
import json
import math
import os
import sys

TOL_REL = 1e-3  # max |gpu - cpu| must stay within TOL_REL * max(1, max |cpu|)
N = 64

out = {"schema": 1, "python": sys.version.split()[0],
       "hsa_override_gfx_version": os.environ.get("HSA_OVERRIDE_GFX_VERSION"),
       "visible": {k: os.environ[k] for k in ("HIP_VISIBLE_DEVICES", "ROCR_VISIBLE_DEVICES",
                                               "CUDA_VISIBLE_DEVICES") if k in os.environ}}


def finish(code=0):
    sys.stdout.write("\n" + json.dumps(out) + "\n")
    sys.stdout.flush()
    sys.exit(code)


try:
    import torch
except BaseException as e:  # noqa: B036 - an import may raise anything, even SystemExit
    out["import_error"] = "%s: %s" % (type(e).__name__, e)
    finish()

out["torch_version"] = str(getattr(torch, "__version__", ""))
out["hip"] = getattr(torch.version, "hip", None)
out["cuda"] = getattr(torch.version, "cuda", None)
try:
    out["available"] = bool(torch.cuda.is_available())
    out["device_count"] = int(torch.cuda.device_count()) if out["available"] else 0
    out["arch_list"] = list(torch.cuda.get_arch_list()) if out["available"] else []
except BaseException as e:  # noqa: B036
    out["available"] = False
    out["device_count"] = 0
    out["error"] = "%s: %s" % (type(e).__name__, e)
    finish()

devices = []
for i in range(out["device_count"]):
    d = {"index": i}
    try:
        p = torch.cuda.get_device_properties(i)
        d["name"] = str(getattr(p, "name", ""))
        arch = getattr(p, "gcnArchName", None)
        if arch is None and out["cuda"]:
            arch = "sm_%d%d" % (p.major, p.minor)
        d["arch"] = arch
        # "gfx90a:sramecc+:xnack-" is built as "gfx90a"; CUDA lists sm_XY (or compute_XY)
        base = (arch or "").split(":")[0]
        d["arch_in_list"] = base in out["arch_list"] or \
            base.replace("sm_", "compute_") in out["arch_list"]
        torch.manual_seed(1234 + i)
        a = torch.randn(N, N)
        b = torch.randn(N, N)
        ref = a @ b
        dev = "cuda:%d" % i
        got = (a.to(dev) @ b.to(dev)).cpu()
        err = float((got - ref).abs().max().item())
        tol = TOL_REL * max(1.0, float(ref.abs().max().item()))
        ok = err <= tol  # False for NaN, which JSON cannot carry as a number
        d["matmul"] = {"n": N, "max_abs_err": err if math.isfinite(err) else None, "tol": tol,
                       "ok": bool(ok)}
    except BaseException as e:  # noqa: B036
        d["error"] = "%s: %s" % (type(e).__name__, e)
    devices.append(d)
out["devices"] = devices
finish()
