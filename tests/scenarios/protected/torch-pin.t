# a user pin on another torch release would replace the ROCm build
env python=3.12.3
fixed torch 2.9.1+rocm7.2.0.lw.git7e1940d4 ROCm build
index pypi 0 tags <inline>
#>=Pkg: torch 2.9.0
#>=Pkg: torch 2.9.1
#>=Pkg: torch 2.10.0
#>=Pkg: accelerate 1.5.0
#>=Req: torch>=2.0.0
#>=Req: numpy
#>=Pkg: numpy 2.3.4
require <inline>
#>torch==2.9.0
#>accelerate
result solution,problem <inline>
#>problem Because req:1 requires torch==2.9.0 but torch is fixed at 2.9.1+rocm7.2.0.lw.git7e1940d4 (ROCm build), the requirements cannot be satisfied.
#>problem culprit req:1 torch==2.9.0
next

# torch==2.9.1 is met by 2.9.1+rocm7.2.0...: a specifier without a local
# label ignores the candidate's label
require <inline>
#>torch==2.9.1
#>accelerate
result solution <inline>
#>install accelerate 1.5.0
#>install numpy 2.3.4
#>keep torch 2.9.1+rocm7.2.0.lw.git7e1940d4 @fixed
next

# but a different local label is a different build
require <inline>
#>torch==2.9.1+cu128
result problem <inline>
#>problem Because req:1 requires torch==2.9.1+cu128 but torch is fixed at 2.9.1+rocm7.2.0.lw.git7e1940d4 (ROCm build), the requirements cannot be satisfied.
#>problem culprit req:1 torch==2.9.1+cu128
next

# >=2.10 would need a PyPI (CUDA) torch
require <inline>
#>torch>=2.10
result problem <inline>
#>problem Because req:1 requires torch>=2.10 but torch is fixed at 2.9.1+rocm7.2.0.lw.git7e1940d4 (ROCm build), the requirements cannot be satisfied.
#>problem culprit req:1 torch>=2.10
