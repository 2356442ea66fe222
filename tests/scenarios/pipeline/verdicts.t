# issue 14: check answers the question it is asked - would installing the input as
# written (uv's and pip's choices: the stack not fixed, installed versions preferred)
# change the protected stack or add CUDA-only packages - with the whole chain; the plan
# holds every package the stack keeps below its newest release with that chain, however
# deep; a build that needs torch is taken out with the command that builds it; and a
# conflict the stack plays no part in is the user's error (exit 2), never a silent strip.
stack stack-rocm72.json
index world 0 tags <inline>
#>=Pkg: rr-deep 1.0
#>=Req: packaging
#>=Pkg: rr-deep 1.1
#>=Req: rr-deep-mid>=2
#>=Pkg: rr-deep-mid 1.0
#>=Pkg: rr-deep-mid 2.0
#>=Req: torchaudio==2.4.1
#>=Pkg: rr-top 1.0
#>=Pkg: rr-top 2.0
#>=Req: rr-deep>=1.1
#>=Pkg: rr-kit 1.0
#>=Req: rr-deep
#>=Pkg: rr-held 1.0
#>=Req: torch>=2.0
#>=Pkg: rr-held 1.1
#>=Req: torch==2.8.0
#>=Pkg: rr-torchkit 1.0
#>=Req: rr-held
#>=Pkg: rr-oldpy 1.0
#>=Pyr: >=3.8,<3.10
#>=Pkg: rr-pins-torch 1.0
#>=Req: torch==2.8.0
#>=Pkg: accelerate 1.10.1
#>=Req: torch>=2.0.0
#>=Req: packaging
#>=Pkg: packaging 25.0
#>=Pkg: torchaudio 2.4.1
#>=Req: torch==2.4.1
#>=Pkg: torch 2.4.1
#>=Req: nvidia-cublas-cu12==12.1.3.1; platform_system == "Linux"
#>=Pkg: torch 2.8.0
#>=Req: nvidia-cublas-cu12==12.8.4.1; platform_system == "Linux"
#>=Pkg: nvidia-cublas-cu12 12.1.3.1
#>=Pkg: nvidia-cublas-cu12 12.8.4.1
#>=Pkg: einops 0.8.1
#>=Pkg: numpy 1.26.4
#>=Pkg: numpy 2.2.6
#>=Pkg: opencv-python-headless 4.11.0.86
#>=Req: numpy>=1.21
#>=Pkg: opencv-python-headless 4.12.0.88
#>=Req: numpy<2.3.0,>=2; python_version >= "3.9"
#>=Pkg: flash-attn 2.8.3
#>=Src:
#>=Unk:
#>=Pkg: rr-needs-fa 1.0
#>=Req: flash-attn
#>=Req: einops
#>=Pkg: xformers 0.0.32
#>=Src:
#>=Req: torch>=2.8
#>=Pkg: mamba-ssm 2.2.5
#>=Req: torch

# the breaker two levels down: rr-deep 1.0 needs no rr-deep-mid at all, so the plan's
# own resolution never meets rr-deep-mid; the plan pins rr-deep with the whole chain and
# check fails naming it (before: kept unpinned, "the ROCm stack stays intact")
input requirements.txt <inline>
#>rr-deep
result plan,decisions,check <inline>
#>plan # rocm-resolve 0.1.0 install plan for /opt/venv
#>plan # python 3.12.3, ROCm 7.2.0-43, torch 2.9.1+rocm7.2.0.lw.git7e1940d4 (hip 7.2.26015-fc0010cf6a)
#>plan # inputs: @DIR@/requirements.txt
#>plan # resolved against: https://pypi.org/simple (default)
#>plan # 0 kept, 1 pinned, 0 stripped, 0 held back; 5 protected distributions
#>plan # protected ROCm stack: installed builds held at their versions
#>plan apex==1.9.0+rocm7.2.0.gite37ed124  # ROCm build
#>plan torch==2.9.1+rocm7.2.0.lw.git7e1940d4  # ROCm build
#>plan torchaudio==2.9.0+rocm7.2.0.gite3c6ee2b  # ROCm build
#>plan torchvision==0.24.0+rocm7.2.0.gitb919bd0c  # ROCm build
#>plan triton==3.5.1+rocm7.2.0.gita272dfa8  # ROCm build
#>plan rr-deep==1.0  # held back: rr-deep 1.1 -> rr-deep-mid>=2 -> rr-deep-mid 2.0 requires torchaudio==2.4.1; the protected torchaudio is 2.9.0+rocm7.2.0.gite3c6ee2b (asked: rr-deep)
#>decision @DIR@/requirements.txt:1 pin held-back rr-deep==1.0
#>check breaks
#>check @DIR@/requirements.txt:1: rr-deep: rr-deep 1.1 -> rr-deep-mid>=2 -> rr-deep-mid 2.0 requires torchaudio==2.4.1; the protected torchaudio is 2.9.0+rocm7.2.0.gite3c6ee2b; the plan has rr-deep==1.0
next

# three levels down: the held-back line is never cut
input requirements.txt <inline>
#>rr-top
#>packaging
result plan,decisions,check <inline>
#>plan # rocm-resolve 0.1.0 install plan for /opt/venv
#>plan # python 3.12.3, ROCm 7.2.0-43, torch 2.9.1+rocm7.2.0.lw.git7e1940d4 (hip 7.2.26015-fc0010cf6a)
#>plan # inputs: @DIR@/requirements.txt
#>plan # resolved against: https://pypi.org/simple (default)
#>plan # 1 kept, 1 pinned, 0 stripped, 0 held back; 5 protected distributions
#>plan # protected ROCm stack: installed builds held at their versions
#>plan apex==1.9.0+rocm7.2.0.gite37ed124  # ROCm build
#>plan torch==2.9.1+rocm7.2.0.lw.git7e1940d4  # ROCm build
#>plan torchaudio==2.9.0+rocm7.2.0.gite3c6ee2b  # ROCm build
#>plan torchvision==0.24.0+rocm7.2.0.gitb919bd0c  # ROCm build
#>plan triton==3.5.1+rocm7.2.0.gita272dfa8  # ROCm build
#>plan rr-top==1.0  # held back: rr-top 2.0 -> rr-deep>=1.1 -> rr-deep 1.1 -> rr-deep-mid>=2 -> rr-deep-mid 2.0 requires torchaudio==2.4.1; the protected torchaudio is 2.9.0+rocm7.2.0.gite3c6ee2b (asked: rr-top)
#>plan packaging
#>decision @DIR@/requirements.txt:1 pin held-back rr-top==1.0
#>decision @DIR@/requirements.txt:2 keep ok packaging
#>check breaks
#>check @DIR@/requirements.txt:1: rr-top: rr-top 2.0 -> rr-deep>=1.1 -> rr-deep 1.1 -> rr-deep-mid>=2 -> rr-deep-mid 2.0 requires torchaudio==2.4.1; the protected torchaudio is 2.9.0+rocm7.2.0.gite3c6ee2b; the plan has rr-top==1.0
next

# kept at the top, held below: the chain from the line as written, and the hold instead
input requirements.txt <inline>
#>rr-kit
result plan,decisions,check <inline>
#>plan # rocm-resolve 0.1.0 install plan for /opt/venv
#>plan # python 3.12.3, ROCm 7.2.0-43, torch 2.9.1+rocm7.2.0.lw.git7e1940d4 (hip 7.2.26015-fc0010cf6a)
#>plan # inputs: @DIR@/requirements.txt
#>plan # resolved against: https://pypi.org/simple (default)
#>plan # 1 kept, 0 pinned, 0 stripped, 1 held back; 5 protected distributions
#>plan # protected ROCm stack: installed builds held at their versions
#>plan apex==1.9.0+rocm7.2.0.gite37ed124  # ROCm build
#>plan torch==2.9.1+rocm7.2.0.lw.git7e1940d4  # ROCm build
#>plan torchaudio==2.9.0+rocm7.2.0.gite3c6ee2b  # ROCm build
#>plan torchvision==0.24.0+rocm7.2.0.gitb919bd0c  # ROCm build
#>plan triton==3.5.1+rocm7.2.0.gita272dfa8  # ROCm build
#>plan rr-kit
#>plan # held back for the ROCm stack (the newest release would break it)
#>plan rr-deep==1.0  # rr-deep 1.1 -> rr-deep-mid>=2 -> rr-deep-mid 2.0 requires torchaudio==2.4.1; the protected torchaudio is 2.9.0+rocm7.2.0.gite3c6ee2b
#>decision @DIR@/requirements.txt:1 keep ok rr-kit
#>check breaks
#>check @DIR@/requirements.txt:1: rr-kit: rr-kit 1.0 -> rr-deep 1.1 -> rr-deep-mid>=2 -> rr-deep-mid 2.0 requires torchaudio==2.4.1; the protected torchaudio is 2.9.0+rocm7.2.0.gite3c6ee2b; the plan holds rr-deep at 1.0
next

# the line whose chain pins torch is the cause, not the one that merely needs a torch
# (accelerate's torch>=2.0.0 is met by the ROCm build). Packages are decided in the
# order they are met, as uv does: rr-held first, its newest release takes torch 2.8.0
# (real uv does; pip keeps the build here, and check answers for both)
input requirements.txt <inline>
#>rr-torchkit
#>accelerate
result decisions,check <inline>
#>decision @DIR@/requirements.txt:1 keep ok rr-torchkit
#>decision @DIR@/requirements.txt:2 keep ok accelerate
#>check breaks
#>check @DIR@/requirements.txt:1: rr-torchkit: rr-torchkit 1.0 -> rr-held 1.1 requires torch==2.8.0; the protected torch is 2.9.1+rocm7.2.0.lw.git7e1940d4; the plan holds rr-held at 1.0
next

# the other order: torch is decided first (the installed build, preferred), and the
# newest rr-held no longer fits: uv and pip both take rr-held 1.0 and keep the stack,
# so check passes; the plan still holds rr-held, saying why
input requirements.txt <inline>
#>accelerate
#>rr-torchkit
result plan,check <inline>
#>plan # rocm-resolve 0.1.0 install plan for /opt/venv
#>plan # python 3.12.3, ROCm 7.2.0-43, torch 2.9.1+rocm7.2.0.lw.git7e1940d4 (hip 7.2.26015-fc0010cf6a)
#>plan # inputs: @DIR@/requirements.txt
#>plan # resolved against: https://pypi.org/simple (default)
#>plan # 2 kept, 0 pinned, 0 stripped, 1 held back; 5 protected distributions
#>plan # protected ROCm stack: installed builds held at their versions
#>plan apex==1.9.0+rocm7.2.0.gite37ed124  # ROCm build
#>plan torch==2.9.1+rocm7.2.0.lw.git7e1940d4  # ROCm build
#>plan torchaudio==2.9.0+rocm7.2.0.gite3c6ee2b  # ROCm build
#>plan torchvision==0.24.0+rocm7.2.0.gitb919bd0c  # ROCm build
#>plan triton==3.5.1+rocm7.2.0.gita272dfa8  # ROCm build
#>plan accelerate
#>plan rr-torchkit
#>plan # held back for the ROCm stack (the newest release would break it)
#>plan rr-held==1.0  # rr-held 1.1 requires torch==2.8.0; the protected torch is 2.9.1+rocm7.2.0.lw.git7e1940d4
#>check intact
next

# no safe version because of the stack: stripped, and check blames the stack for it
input requirements.txt <inline>
#>rr-pins-torch
#>einops
result decisions,check <inline>
#>decision @DIR@/requirements.txt:1 strip no-safe-version -
#>decision @DIR@/requirements.txt:2 keep ok einops
#>check breaks
#>check @DIR@/requirements.txt:1: rr-pins-torch: rr-pins-torch 1.0 requires torch==2.8.0; the protected torch is 2.9.1+rocm7.2.0.lw.git7e1940d4; the plan strips it
next

# a version no index has: the user's error, never a silent strip, never the stack's
input requirements.txt <inline>
#>einops==99.0
#>packaging
result decisions,check <inline>
#>error @DIR@/requirements.txt:1: 'einops==99.0' cannot be installed, with the ROCm stack or without it; uv and pip refuse it too:
#>error Because @DIR@/requirements.txt:1 requires einops==99.0 but no version of einops matches, the requirements cannot be satisfied.
next

# two of the user's own lines that exclude each other: the whole derivation
input requirements.txt <inline>
#>numpy<2
#>opencv-python-headless>=4.12
result decisions,check <inline>
#>error @DIR@/requirements.txt:1: 'numpy<2' and @DIR@/requirements.txt:2: 'opencv-python-headless>=4.12' exclude each other, with the ROCm stack or without it; uv and pip refuse them too:
#>error Because @DIR@/requirements.txt:1 requires numpy<2 and opencv-python-headless 4.12.0.88 depends on numpy<2.3.0,>=2, opencv-python-headless 4.12.0.88 cannot be installed.
#>error And because @DIR@/requirements.txt:2 requires opencv-python-headless>=4.12, the requirements cannot be satisfied.
next

# a line only a Requires-Python upper bound keeps out: pip refuses it, uv (which ignores
# such bounds) would take it; the plan must install with both: the user's error, said so
input requirements.txt <inline>
#>rr-oldpy
#>einops
result decisions,check <inline>
#>error @DIR@/requirements.txt:1: 'rr-oldpy' cannot be installed, with the ROCm stack or without it; pip refuses it, uv would take it: uv ignores Requires-Python upper bounds:
#>error Because @DIR@/requirements.txt:1 requires rr-oldpy and every version of rr-oldpy requires Python >=3.8,<3.10 (the target has 3.12.3), the requirements cannot be satisfied.
next

# a build that needs torch (no wheel here): out of the plan, with the command that builds
# it against the installed torch, the policy's ROCm word, and what needs it taken out
# too; a torch extension with a wheel here (mamba-ssm) needs no build and stays
input requirements.txt <inline>
#>flash-attn
#>rr-needs-fa
#>xformers
#>einops
#>mamba-ssm
result plan,decisions,check <inline>
#>plan # rocm-resolve 0.1.0 install plan for /opt/venv
#>plan # python 3.12.3, ROCm 7.2.0-43, torch 2.9.1+rocm7.2.0.lw.git7e1940d4 (hip 7.2.26015-fc0010cf6a)
#>plan # inputs: @DIR@/requirements.txt
#>plan # resolved against: https://pypi.org/simple (default)
#>plan # 2 kept, 0 pinned, 3 stripped, 0 held back; 5 protected distributions
#>plan # protected ROCm stack: installed builds held at their versions
#>plan apex==1.9.0+rocm7.2.0.gite37ed124  # ROCm build
#>plan torch==2.9.1+rocm7.2.0.lw.git7e1940d4  # ROCm build
#>plan torchaudio==2.9.0+rocm7.2.0.gite3c6ee2b  # ROCm build
#>plan torchvision==0.24.0+rocm7.2.0.gitb919bd0c  # ROCm build
#>plan triton==3.5.1+rocm7.2.0.gita272dfa8  # ROCm build
#>plan einops
#>plan mamba-ssm
#>plan # stripped:
#>plan #   @DIR@/requirements.txt:1: flash-attn: no wheel here, and its build needs torch: pip install --no-build-isolation flash-attn==2.8.3
#>plan #   @DIR@/requirements.txt:2: rr-needs-fa: needs flash-attn, which has no wheel here and builds against torch: pip install --no-build-isolation flash-attn==2.8.3 first
#>plan #   @DIR@/requirements.txt:3: xformers: no wheel here, and its build needs torch: pip install --no-build-isolation xformers==0.0.32
#>decision @DIR@/requirements.txt:1 strip build-needs-torch -
#>decision @DIR@/requirements.txt:2 strip build-needs-torch -
#>decision @DIR@/requirements.txt:3 strip build-needs-torch -
#>decision @DIR@/requirements.txt:4 keep ok einops
#>decision @DIR@/requirements.txt:5 keep ok mamba-ssm
#>check intact
