# package[extra] is a virtual package pinned to the same version as the
# package, adding the extra's requirements (PEP 685 names)
env python=3.12.3
fixed torch 2.9.1+rocm7.2.0.lw.git7e1940d4 ROCm build
index pypi 0 tags <inline>
#>=Pkg: transformers 4.56.2
#>=Req: numpy>=1.17
#>=Req: torch>=2.5; extra == "torch"
#>=Req: accelerate>=1.1.0; extra == "torch"
#>=Req: tensorflow>2.9; extra == "tf"
#>=Pkg: transformers 4.57.0
#>=Req: numpy>=1.17
#>=Req: torch>=2.10; extra == "torch"
#>=Req: accelerate>=1.1.0; extra == "torch"
#>=Pkg: accelerate 1.10.1
#>=Req: torch>=2.0.0
#>=Req: numpy
#>=Pkg: numpy 2.3.4
#>=Pkg: tensorflow 2.20.0

# transformers[torch] pulls accelerate; 4.57.0's torch>=2.10 extra does not
# fit the fixed torch, so 4.56.2 is chosen
require <inline>
#>transformers[torch]
result solution <inline>
#>install accelerate 1.10.1
#>install numpy 2.3.4
#>keep torch 2.9.1+rocm7.2.0.lw.git7e1940d4 @fixed
#>install transformers 4.56.2
next

# without the extra, the newest transformers and no accelerate
require <inline>
#>transformers
result solution <inline>
#>install numpy 2.3.4
#>install transformers 4.57.0
next

# extra names are normalised; two extras together
require <inline>
#>Transformers[Torch,TF]==4.56.2
result solution <inline>
#>install accelerate 1.10.1
#>install numpy 2.3.4
#>install tensorflow 2.20.0
#>keep torch 2.9.1+rocm7.2.0.lw.git7e1940d4 @fixed
#>install transformers 4.56.2
