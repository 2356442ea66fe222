# issue 8: in the pytorch.org ROCm 6.4 layout pytorch-triton-rocm owns triton/.
# A release that needs PyPI triton is a conflict: the one without it is chosen
# and pinned with that cause; keeping the newer one with an exclusion is an
# opt-in only uv's --excludes can honour (--uv-excludes, install).
stack stack-rocm64.json
index world 0 tags <inline>
#>=Pkg: rr-tritondep 1.0
#>=Req: filelock
#>=Pkg: rr-tritondep 1.1
#>=Req: triton>=3.0
#>=Pkg: rr-cuda-newest 1.0
#>=Pkg: rr-cuda-newest 1.1
#>=Req: nvidia-cublas-cu12>=12; platform_system == "Linux"
#>=Pkg: rr-only-triton 2.0
#>=Req: triton
#>=Pkg: filelock 3.13.1
#>=Pkg: triton 3.4.0
#>=Pkg: nvidia-cublas-cu12 12.8.4.1

input requirements.txt <inline>
#>rr-tritondep
#>rr-cuda-newest
result decisions,check,excludes <inline>
#>decision @DIR@/requirements.txt:1 pin held-back rr-tritondep==1.0
#>decision @DIR@/requirements.txt:2 pin held-back rr-cuda-newest==1.0
#>check breaks
#>check @DIR@/requirements.txt:1: rr-tritondep: rr-tritondep 1.1 requires triton>=3.0, which would overwrite the files of the protected pytorch-triton-rocm 3.4.0; the plan has rr-tritondep==1.0
#>check @DIR@/requirements.txt:2: rr-cuda-newest: rr-cuda-newest 1.1 requires nvidia-cublas-cu12>=12, a CUDA-only package; the plan has rr-cuda-newest==1.0
next

# the opt-in: the newer release stays, triton goes to the exclusion list
input requirements.txt <inline>
#>rr-tritondep
option --uv-excludes
result decisions,check,excludes <inline>
#>decision @DIR@/requirements.txt:1 keep ok rr-tritondep
#>check breaks
#>check @DIR@/requirements.txt:1: rr-tritondep: rr-tritondep 1.1 requires triton>=3.0, which would overwrite the files of the protected pytorch-triton-rocm 3.4.0; the plan needs triton excluded (uv --excludes)
#>exclude triton
next

# no release without triton: stripped with the derivation, never kept with a warning
input requirements.txt <inline>
#>rr-only-triton
#>filelock
result plan,decisions,check <inline>
#>plan # rocm-resolve 0.1.0 install plan for /opt/venv
#>plan # python 3.11.13, torch 2.8.0+rocm6.4 (hip 6.4.43482)
#>plan # inputs: @DIR@/requirements.txt
#>plan # resolved against: https://pypi.org/simple (default)
#>plan # 1 kept, 0 pinned, 1 stripped, 0 held back; 4 protected distributions
#>plan # protected ROCm stack: installed builds held at their versions
#>plan pytorch-triton-rocm==3.4.0  # GPU-family package installed with the ROCm torch 2.8.0+rocm6.4
#>plan torch==2.8.0+rocm6.4  # ROCm build
#>plan torchaudio==2.8.0+rocm6.4  # ROCm build
#>plan torchvision==0.23.0+rocm6.4  # ROCm build
#>plan filelock
#>plan # stripped:
#>plan #   @DIR@/requirements.txt:1: rr-only-triton: Because @DIR@/requirements.txt:1 requires rr-only-triton and every version of rr-only-triton depends on triton but triton is forbidden (would overwrite a protected module), the requirements cannot be satisfied.
#>decision @DIR@/requirements.txt:1 strip no-safe-version -
#>decision @DIR@/requirements.txt:2 keep ok filelock
#>check breaks
#>check @DIR@/requirements.txt:1: rr-only-triton: rr-only-triton 2.0 requires triton, which would overwrite the files of the protected pytorch-triton-rocm 3.4.0; the plan strips it
