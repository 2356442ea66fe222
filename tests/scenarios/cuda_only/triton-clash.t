# triton, pytorch-triton-rocm and triton-rocm all install the import package
# "triton". With pytorch-triton-rocm 3.4.0 fixed, a requirement on triton is
# checked against the fixed member (local label ignored) and PyPI's triton is
# never selected: installing it would overwrite the ROCm build's files.
env python=3.12.3 sys_platform=linux platform_system=Linux platform_machine=x86_64
fixed torch 2.8.0+rocm6.4 ROCm build
fixed pytorch-triton-rocm 3.4.0+rocm6.4.git1234abcd ROCm build
clash triton triton pytorch-triton-rocm triton-rocm
index pypi 0 tags <inline>
#>=Pkg: triton 3.3.1
#>=Pkg: triton 3.4.0
#>=Pkg: triton 3.5.1
#>=Pkg: kernels 1.0
#>=Req: triton>=3.0
#>=Req: torch>=2.6
#>=Pkg: newkernels 2.0
#>=Req: triton>=3.5
#>=Pkg: bnb 0.42.0
#>=Req: triton~=2.0.0; sys_platform == "linux" and platform_machine == "x86_64"
#>=Req: torch
#>=Pkg: bnb 0.45.0
#>=Req: torch>=2.2,<3

# satisfied by the fixed pytorch-triton-rocm 3.4.0: no triton from PyPI
require <inline>
#>kernels
result solution <inline>
#>install kernels 1.0
#>keep pytorch-triton-rocm 3.4.0+rocm6.4.git1234abcd @fixed
#>keep torch 2.8.0+rocm6.4 @fixed
next

# needs triton 3.5: the fixed 3.4.0 does not match
require <inline>
#>newkernels
result problem <inline>
#>problem Because req:1 requires newkernels and every version of newkernels depends on triton>=3.5 but triton is provided by the fixed pytorch-triton-rocm 3.4.0+rocm6.4.git1234abcd (ROCm build), which does not match, the requirements cannot be satisfied.
#>problem culprit req:1 newkernels
next

# an old bitsandbytes-style extra pin on triton~=2.0 makes the resolver
# pick the release without it
require <inline>
#>bnb
result solution <inline>
#>install bnb 0.45.0
#>keep torch 2.8.0+rocm6.4 @fixed
next

require <inline>
#>bnb==0.42.0
result problem <inline>
#>problem Because req:1 requires bnb==0.42.0 and bnb 0.42.0 depends on triton~=2.0.0 but triton is provided by the fixed pytorch-triton-rocm 3.4.0+rocm6.4.git1234abcd (ROCm build), which does not match, the requirements cannot be satisfied.
#>problem culprit req:1 bnb==0.42.0
