# issue 8 item 7: a devcontainer's project .venv reaches /opt/venv's site-packages
# through a .pth file. pip sees the bridged stack, uv does not: the plan header
# names the bridge and the exclusion list carries the bridged protected names.
stack stack-bridged.json
index world 0 tags <inline>
#>=Pkg: accelerate 1.10.0
#>=Req: torch>=2.0.0
#>=Req: numpy<3.0.0,>=1.17

input requirements.txt <inline>
#>accelerate
#>torch>=2.0
result plan,decisions,check,excludes <inline>
#>plan # rocm-resolve 0.1.0 install plan for /workspaces/proj/.venv
#>plan # python 3.12.3, torch 2.9.1+rocm7.2.0.lw.git7e1940d4 (hip 7.2.26015-fc0010cf6a)
#>plan # inputs: @DIR@/requirements.txt
#>plan # resolved against: https://pypi.org/simple (default)
#>plan # 1 kept, 1 pinned, 0 stripped, 0 held back; 5 protected distributions
#>plan # bridged: apex, torch, torchaudio, torchvision, triton come from /opt/venv/lib/python3.12/site-packages through a .pth file; pip sees them there, uv does not: install with `rocm-resolve install` or give uv the --uv-excludes file
#>plan # protected ROCm stack: installed builds held at their versions
#>plan apex==1.9.0+rocm7.2.0.gite37ed124  # ROCm build
#>plan torchaudio==2.9.0+rocm7.2.0.gite3c6ee2b  # ROCm build
#>plan torchvision==0.24.0+rocm7.2.0.gitb919bd0c  # ROCm build
#>plan triton==3.5.1+rocm7.2.0.gita272dfa8  # ROCm build
#>plan accelerate
#>plan torch==2.9.1+rocm7.2.0.lw.git7e1940d4  # pinned: protected, ROCm build (asked: torch>=2.0)
#>decision @DIR@/requirements.txt:1 keep ok accelerate
#>decision @DIR@/requirements.txt:2 pin protected torch==2.9.1+rocm7.2.0.lw.git7e1940d4
#>check intact
#>exclude apex
#>exclude torch
#>exclude torchaudio
#>exclude torchvision
#>exclude triton
