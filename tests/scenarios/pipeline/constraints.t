# a -c file reached from the input: entries on protected or CUDA-only names are
# dropped, each a strip check reports, and the plan names a filtered copy (in the
# data directory) holding the rest, which still bounds the resolution
stack stack-rocm72.json
index world 0 tags <inline>
#>=Pkg: requests 2.31.0
#>=Req: urllib3<3,>=1.21.1
#>=Pkg: requests 2.32.3
#>=Req: urllib3<3,>=1.21.1
#>=Pkg: urllib3 1.26.20
#>=Pkg: urllib3 2.2.3

file constraints.txt <inline>
#>torch==2.4.0
#>nvidia-nccl-cu12==2.20.5
#>urllib3<2
input requirements.txt <inline>
#>-c constraints.txt
#>requests
result plan,decisions,check <inline>
#>plan # rocm-resolve 0.1.0 install plan for /opt/venv
#>plan # python 3.12.3, ROCm 7.2.0-43, torch 2.9.1+rocm7.2.0.lw.git7e1940d4 (hip 7.2.26015-fc0010cf6a)
#>plan # inputs: @DIR@/requirements.txt @DIR@/constraints.txt
#>plan # resolved against: https://pypi.org/simple (default)
#>plan # 2 kept, 0 pinned, 2 stripped, 0 held back; 5 protected distributions
#>plan -c @DIR@/data/constraints/constraints-8e0b3ba860a6483c.txt
#>plan # protected ROCm stack: installed builds held at their versions
#>plan apex==1.9.0+rocm7.2.0.gite37ed124  # ROCm build
#>plan torch==2.9.1+rocm7.2.0.lw.git7e1940d4  # ROCm build
#>plan torchaudio==2.9.0+rocm7.2.0.gite3c6ee2b  # ROCm build
#>plan torchvision==0.24.0+rocm7.2.0.gitb919bd0c  # ROCm build
#>plan triton==3.5.1+rocm7.2.0.gita272dfa8  # ROCm build
#>plan requests
#>plan # stripped:
#>plan #   @DIR@/constraints.txt:1: -c torch==2.4.0: it would replace the protected torch, which the plan pins
#>plan #   @DIR@/constraints.txt:2: -c nvidia-nccl-cu12==2.20.5: CUDA-only (NVIDIA-only libraries, a -cuNN / -cudaNN build)
#>decision @DIR@/constraints.txt:1 strip protected -
#>decision @DIR@/constraints.txt:2 strip cuda-only -
#>decision @DIR@/constraints.txt:3 keep constraint -
#>decision @DIR@/requirements.txt:2 keep ok requests
#>check breaks
#>check @DIR@/constraints.txt:1: -c torch==2.4.0: it would replace the protected torch, which the plan pins; the plan strips it
#>check @DIR@/constraints.txt:2: -c nvidia-nccl-cu12==2.20.5: CUDA-only (NVIDIA-only libraries, a -cuNN / -cudaNN build); the plan strips it
