# vllm pins torch exactly (pypi-facts 2.6): 0.10.1 needs torch==2.8.0, so it
# cannot go into the ROCm 7.2 image with torch 2.9.1, but fits a ROCm 6.4
# image whose torch is 2.8.0+rocm6.4 (local label ignored by ==2.8.0).
env python=3.12.3 sys_platform=linux platform_system=Linux platform_machine=x86_64
index pypi 0 tags <inline>
#>=Pkg: vllm 0.10.0
#>=Req: torch==2.7.1
#>=Req: torchaudio==2.7.1
#>=Req: xformers==0.0.30; platform_system == "Linux" and platform_machine == "x86_64"
#>=Pkg: vllm 0.10.1
#>=Req: torch==2.8.0
#>=Req: torchaudio==2.8.0
#>=Req: transformers>=4.55
#>=Pkg: vllm 0.11.0
#>=Req: torch==2.8.0
#>=Req: torchaudio==2.8.0
#>=Req: transformers>=4.55
#>=Pkg: vllm 0.11.1
#>=Req: torch==2.9.0
#>=Req: torchaudio==2.9.0
#>=Req: transformers>=4.56
#>=Pkg: torch 2.7.1
#>=Pkg: torch 2.8.0
#>=Pkg: torch 2.9.0
#>=Pkg: torchaudio 2.7.1
#>=Req: torch==2.7.1
#>=Pkg: torchaudio 2.8.0
#>=Req: torch==2.8.0
#>=Pkg: torchaudio 2.9.0
#>=Req: torch==2.9.0
#>=Pkg: xformers 0.0.30
#>=Req: torch==2.7.0
#>=Pkg: transformers 4.55.0
#>=Pkg: transformers 4.56.2

# ROCm 7.2: vllm==0.10.1 is impossible
fixed torch 2.9.1+rocm7.2.0.lw.git7e1940d4 ROCm build
fixed torchaudio 2.9.1+rocm7.2.0.git1a2b3c4d ROCm build
require <inline>
#>vllm==0.10.1
result solution,problem <inline>
#>problem Because req:1 requires vllm==0.10.1 and vllm 0.10.1 depends on torchaudio==2.8.0 but torchaudio is fixed at 2.9.1+rocm7.2.0.git1a2b3c4d (ROCm build), the requirements cannot be satisfied.
#>problem culprit req:1 vllm==0.10.1
next

# ROCm 7.2, unpinned: no vllm release fits; every version is ruled out
fixed torch 2.9.1+rocm7.2.0.lw.git7e1940d4 ROCm build
fixed torchaudio 2.9.1+rocm7.2.0.git1a2b3c4d ROCm build
require <inline>
#>vllm
result solution,problem <inline>
#>problem Because vllm 0.10.0 depends on torchaudio==2.7.1 but torchaudio is fixed at 2.9.1+rocm7.2.0.git1a2b3c4d (ROCm build) and vllm 0.10.1 depends on torchaudio==2.8.0 but torchaudio is fixed at 2.9.1+rocm7.2.0.git1a2b3c4d (ROCm build), vllm <=0.10.1 cannot be installed.
#>problem And because vllm 0.11.0 depends on torchaudio==2.8.0 but torchaudio is fixed at 2.9.1+rocm7.2.0.git1a2b3c4d (ROCm build), vllm <=0.11.0 cannot be installed.
#>problem And because req:1 requires vllm and vllm 0.11.1 depends on torchaudio==2.9.0 but torchaudio is fixed at 2.9.1+rocm7.2.0.git1a2b3c4d (ROCm build), the requirements cannot be satisfied.
#>problem culprit req:1 vllm
next

# ROCm 6.4 image with torch 2.8.0: the same pin works
fixed torch 2.8.0+rocm6.4 ROCm build
fixed torchaudio 2.8.0+rocm6.4 ROCm build
require <inline>
#>vllm==0.10.1
result solution,problem <inline>
#>keep torch 2.8.0+rocm6.4 @fixed
#>keep torchaudio 2.8.0+rocm6.4 @fixed
#>install transformers 4.56.2
#>install vllm 0.10.1
next

# ROCm 6.4, unpinned: the newest vllm that fits is 0.11.0
fixed torch 2.8.0+rocm6.4 ROCm build
fixed torchaudio 2.8.0+rocm6.4 ROCm build
require <inline>
#>vllm
result solution,problem <inline>
#>keep torch 2.8.0+rocm6.4 @fixed
#>keep torchaudio 2.8.0+rocm6.4 @fixed
#>install transformers 4.56.2
#>install vllm 0.11.0
