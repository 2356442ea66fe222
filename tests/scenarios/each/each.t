# per-requirement answers: requirements that cannot be met are dropped one at
# a time (later lines first), each with its explanation; the rest resolves
env python=3.12.3
fixed torch 2.9.1+rocm7.2.0.lw.git7e1940d4 ROCm build
index pypi 0 tags <inline>
#>=Pkg: torchvision 0.19.1
#>=Req: torch==2.4.1
#>=Pkg: torchvision 0.24.1
#>=Req: torch==2.9.1
#>=Pkg: vllm 0.10.1
#>=Req: torch==2.8.0
#>=Pkg: accelerate 1.10.1
#>=Req: torch>=2.0.0
#>=Pkg: old 1.0
#>=Req: accelerate<1
#>=Pkg: accelerate 0.34.0
#>=Req: torch>=1.10.0
flags each
require <inline>
#>accelerate
#>torchvision==0.19.1
#>vllm==0.10.1
#>old
result solution,problem <inline>
#>drop req:2 torchvision==0.19.1
#>problem Because req:2 requires torchvision==0.19.1 and torchvision 0.19.1 depends on torch==2.4.1 but torch is fixed at 2.9.1+rocm7.2.0.lw.git7e1940d4 (ROCm build), the requirements cannot be satisfied.
#>drop req:3 vllm==0.10.1
#>problem Because req:3 requires vllm==0.10.1 and every version of vllm depends on torch==2.8.0 but torch is fixed at 2.9.1+rocm7.2.0.lw.git7e1940d4 (ROCm build), the requirements cannot be satisfied.
#>install accelerate 0.34.0
#>install old 1.0
#>keep torch 2.9.1+rocm7.2.0.lw.git7e1940d4 @fixed
next

# two user requirements in conflict with each other: the later one goes
flags each
require <inline>
#>accelerate>=1.0
#>old
result solution,problem <inline>
#>drop req:2 old
#>problem Because req:1 requires accelerate>=1.0 and every version of old depends on accelerate<1, no version of old can be installed.
#>problem And because req:2 requires old, the requirements cannot be satisfied.
#>install accelerate 1.10.1
#>keep torch 2.9.1+rocm7.2.0.lw.git7e1940d4 @fixed
