# the plan's own rules on the ROCm 7.2 image: protected pins, CUDA-only strips,
# CUDA wheel indexes, markers, credentials, and what the plan names as its index
stack stack-rocm72.json
index world 0 tags <inline>
#>=Pkg: accelerate 1.10.0
#>=Req: numpy<3.0.0,>=1.17
#>=Req: torch>=2.0.0
#>=Pkg: numpy 2.3.4
#>=Pkg: flash-attn 2.7.4
#>=Unk:

input requirements.txt <inline>
#>--extra-index-url https://download.pytorch.org/whl/cu121
#>-i https://alice:s3cr3t@mirror.example.com/simple
#>torch==2.4.0
#>torchvision>=0.19
#>accelerate
#>nvidia-cublas-cu12==12.1.3.1
#>pywin32 ; sys_platform == "win32"
#>flash-attn
result plan,decisions,check <inline>
#>plan # rocm-resolve 0.1.0 install plan for /opt/venv
#>plan # python 3.12.3, ROCm 7.2.0-43, torch 2.9.1+rocm7.2.0.lw.git7e1940d4 (hip 7.2.26015-fc0010cf6a)
#>plan # inputs: @DIR@/requirements.txt
#>plan # resolved against: https://mirror.example.com/simple (default)
#>plan # 3 kept, 2 pinned, 2 stripped, 0 held back; 5 protected distributions
#>plan --index-url https://mirror.example.com/simple
#>plan # credentials in index URLs are never written: give them to the installer through ~/.netrc, keyring, or ${VAR} in the URL
#>plan # protected ROCm stack: installed builds held at their versions
#>plan apex==1.9.0+rocm7.2.0.gite37ed124  # ROCm build
#>plan torchaudio==2.9.0+rocm7.2.0.gite3c6ee2b  # ROCm build
#>plan triton==3.5.1+rocm7.2.0.gita272dfa8  # ROCm build
#>plan torch==2.9.1+rocm7.2.0.lw.git7e1940d4  # pinned: the version asked for would replace the protected build, ROCm build (asked: torch==2.4.0)
#>plan torchvision==0.24.0+rocm7.2.0.gitb919bd0c  # pinned: protected, ROCm build (asked: torchvision>=0.19)
#>plan accelerate
#>plan pywin32 ; sys_platform == "win32"
#>plan flash-attn  # unknown: dependencies unknown until it is built, and its build needs torch: build it with --no-build-isolation against the installed torch, or use a ROCm wheel (flash-attention: compiled (or Triton) kernels for one GPU vendor)
#>plan # stripped:
#>plan #   @DIR@/requirements.txt:1: --extra-index-url https://download.pytorch.org/whl/cu121: download.pytorch.org CUDA index
#>plan #   @DIR@/requirements.txt:6: nvidia-cublas-cu12==12.1.3.1: CUDA-only (NVIDIA-only libraries, a -cuNN / -cudaNN build)
#>decision @DIR@/requirements.txt:3 pin protected torch==2.9.1+rocm7.2.0.lw.git7e1940d4
#>decision @DIR@/requirements.txt:4 pin protected torchvision==0.24.0+rocm7.2.0.gitb919bd0c
#>decision @DIR@/requirements.txt:5 keep ok accelerate
#>decision @DIR@/requirements.txt:6 strip cuda-only -
#>decision @DIR@/requirements.txt:7 keep marker-false pywin32 ; sys_platform == "win32"
#>decision @DIR@/requirements.txt:8 keep deps-unknown flash-attn
#>check breaks
#>check @DIR@/requirements.txt:1: --extra-index-url https://download.pytorch.org/whl/cu121: download.pytorch.org CUDA index; the plan leaves the index out
#>check @DIR@/requirements.txt:3: torch==2.4.0: the version asked for would replace the protected build, ROCm build; the plan has torch==2.9.1+rocm7.2.0.lw.git7e1940d4
#>check @DIR@/requirements.txt:6: nvidia-cublas-cu12==12.1.3.1: CUDA-only (NVIDIA-only libraries, a -cuNN / -cudaNN build); the plan strips it
