# issue 8: every change is a decision with its real cause, and check agrees.
# The whole pipeline runs: the stack file of the rocm/pytorch ROCm 7.2 image,
# the requirements file below, this world instead of an index.
stack stack-rocm72.json
index world 0 tags <inline>
#>=Pkg: rr-held 1.0
#>=Req: torch>=2.0
#>=Pkg: rr-held 1.1
#>=Req: torch==2.8.0
#>=Pkg: rr-parent 2.0
#>=Req: rr-held
#>=Pkg: rr-pybound 1.0
#>=Pkg: rr-pybound 2.0
#>=Pyr: >=3.13
#>=Pkg: rr-pyupper 1.0
#>=Pkg: rr-pyupper 2.0
#>=Pyr: >=3.8,<3.10
#>=Req: torch==2.8.0
#>=Pkg: rr-pyupper-ok 1.0
#>=Pkg: rr-pyupper-ok 2.0
#>=Pyr: <3.10
#>=Pkg: requests 2.32.3
#>=Req: urllib3<3,>=1.21.1
#>=Pkg: urllib3 2.2.3
#>=Pkg: torch 2.8.0

# the newest rr-held pins another torch: a pin decision naming that chain
input requirements.txt <inline>
#>rr-held
#>requests
result decisions,check <inline>
#>decision @DIR@/requirements.txt:1 pin held-back rr-held==1.0
#>decision @DIR@/requirements.txt:2 keep ok requests
#>check breaks
#>check @DIR@/requirements.txt:1: rr-held: rr-held 1.1 requires torch==2.8.0; the protected torch is 2.9.1+rocm7.2.0.lw.git7e1940d4; the plan has rr-held==1.0
next

# the same one level down: the top line is kept, rr-held is held back in the plan
input requirements.txt <inline>
#>rr-parent
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
#>plan rr-parent
#>plan # held back for the ROCm stack (the newest release would break it)
#>plan rr-held==1.0  # rr-held 1.1 requires torch==2.8.0; the protected torch is 2.9.1+rocm7.2.0.lw.git7e1940d4
#>decision @DIR@/requirements.txt:1 keep ok rr-parent
#>check breaks
#>check @DIR@/requirements.txt:1: rr-parent: rr-parent 2.0 -> rr-held 1.1 requires torch==2.8.0; the protected torch is 2.9.1+rocm7.2.0.lw.git7e1940d4; the plan holds rr-held at 1.0
next

# bounded by Requires-Python only (the installer sees that too): nothing pinned, intact
input requirements.txt <inline>
#>rr-pybound
result decisions,check <inline>
#>decision @DIR@/requirements.txt:1 keep ok rr-pybound
#>check intact
next

# bounded by a Requires-Python upper bound, which pip honours and uv ignores: uv would
# install the newer release, which pins another torch, so the plan holds it, saying so
input requirements.txt <inline>
#>rr-pyupper
result decisions,check <inline>
#>decision @DIR@/requirements.txt:1 pin held-back rr-pyupper==1.0
#>check breaks
#>check @DIR@/requirements.txt:1: rr-pyupper: uv ignores the Requires-Python upper bound of rr-pyupper 2.0 (>=3.8,<3.10; pip honours it) and would install it: rr-pyupper 2.0 requires torch==2.8.0; the protected torch is 2.9.1+rocm7.2.0.lw.git7e1940d4; the plan has rr-pyupper==1.0
next

# the same bound on a newer release that fits the stack: uv's choice is safe, nothing pinned
input requirements.txt <inline>
#>rr-pyupper-ok
result decisions,check <inline>
#>decision @DIR@/requirements.txt:1 keep ok rr-pyupper-ok
#>check intact
next

# a project no index has: an index problem, never a silent strip
input requirements.txt <inline>
#>reqeusts
result decisions <inline>
#>error no index has the project @DIR@/requirements.txt:1: 'reqeusts' (asked: https://pypi.org/simple); check the name, or the index (a broken mirror answers with an empty page)
