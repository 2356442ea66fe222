# the newest candidate of a package fails deep down; the solver backjumps and
# takes an older one (the shape of "an unpinned xformers drags torch")
env python=3.12.3
fixed torch 2.9.1+rocm7.2.0.lw.git7e1940d4 ROCm build
index pypi 0 tags <inline>
#>=Pkg: peft 0.17.0
#>=Req: accelerate>=0.21.0
#>=Req: torch>=1.13.0
#>=Pkg: peft 0.18.0
#>=Req: accelerate>=1.5
#>=Req: torch>=1.13.0
#>=Pkg: accelerate 1.4.0
#>=Req: torch>=2.0.0
#>=Pkg: accelerate 1.5.0
#>=Req: torch>=2.0.0
#>=Req: safetensors>=0.6
#>=Pkg: accelerate 1.6.0
#>=Req: torch>=2.10.0
#>=Pkg: safetensors 0.5.3
#>=Pkg: safetensors 0.6.2
#>=Req: numpy>=3; python_version >= "3.12"
#>=Pkg: numpy 2.3.4
require <inline>
#>peft
result solution <inline>
#>install accelerate 1.4.0
#>install peft 0.17.0
#>keep torch 2.9.1+rocm7.2.0.lw.git7e1940d4 @fixed
next

# and when the user holds safetensors back, peft itself has to step back
require <inline>
#>peft
#>safetensors<0.6
result solution <inline>
#>install accelerate 1.4.0
#>install peft 0.17.0
#>install safetensors 0.5.3
#>keep torch 2.9.1+rocm7.2.0.lw.git7e1940d4 @fixed
next

# a cycle: a needs b, b needs a; only the matching pair works
index more 1 tags <inline>
#>=Pkg: cyc-a 1.0
#>=Req: cyc-b==1.0
#>=Pkg: cyc-a 2.0
#>=Req: cyc-b==2.0
#>=Pkg: cyc-b 1.0
#>=Req: cyc-a==1.0
#>=Pkg: cyc-b 2.0
#>=Req: cyc-a==1.0
require <inline>
#>cyc-a
result solution <inline>
#>install cyc-a 1.0
#>install cyc-b 1.0
next

# packages are decided in the order they were met, roots as written (uv's and
# pip's order), not fewest-choices-first: the bounded webui comes before the
# unbounded tables it caps. Fewest-first took tables 3.0 (two choices against
# three), then walked every webui release down and settled on webui 2.0
# (LLaMA-Factory's gradio<=5.50 and pandas: 290 fetches more on a real index).
index order 2 tags <inline>
#>=Pkg: webui 1.0
#>=Pkg: webui 2.0
#>=Pkg: webui 3.0
#>=Req: tables<3
#>=Pkg: tables 2.0
#>=Pkg: tables 3.0
require <inline>
#>webui
#>tables
result solution <inline>
#>install tables 2.0
#>install webui 3.0
