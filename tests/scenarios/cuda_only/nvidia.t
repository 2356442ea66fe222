# CUDA-only wheels are forbidden: a package that needs one cannot be used,
# unless the requirement's marker is false in the target environment.
env python=3.12.3 sys_platform=linux platform_system=Linux platform_machine=x86_64
fixed torch 2.9.1+rocm7.2.0.lw.git7e1940d4 ROCm build
forbid nvidia-cublas-cu12 CUDA-only
forbid nvidia-cudnn-cu12 CUDA-only
index pypi 0 tags <inline>
#>=Pkg: cupy-helper 1.0
#>=Req: nvidia-cublas-cu12>=12.1; platform_system == "Linux"
#>=Pkg: cupy-helper 2.0
#>=Req: nvidia-cublas-cu12>=12.8; platform_system == "Linux"
#>=Pkg: win-helper 1.0
#>=Req: nvidia-cudnn-cu12; platform_system == "Windows"
#>=Req: numpy
#>=Pkg: numpy 2.3.4
#>=Pkg: nvidia-cublas-cu12 12.8.4.1

# every cupy-helper needs a forbidden package
require <inline>
#>cupy-helper
result solution,problem <inline>
#>problem Because cupy-helper 2.0 depends on nvidia-cublas-cu12>=12.8 but nvidia-cublas-cu12 is forbidden (CUDA-only) and cupy-helper 1.0 depends on nvidia-cublas-cu12>=12.1 but nvidia-cublas-cu12 is forbidden (CUDA-only), no version of cupy-helper can be installed.
#>problem And because req:1 requires cupy-helper, the requirements cannot be satisfied.
#>problem culprit req:1 cupy-helper
next

# the CUDA requirement only applies on Windows: fine here
require <inline>
#>win-helper
result solution <inline>
#>install numpy 2.3.4
#>install win-helper 1.0
next

# asking for it directly
require <inline>
#>nvidia-cublas-cu12==12.8.4.1
result problem <inline>
#>problem Because req:1 requires nvidia-cublas-cu12==12.8.4.1 but nvidia-cublas-cu12 is forbidden (CUDA-only), the requirements cannot be satisfied.
#>problem culprit req:1 nvidia-cublas-cu12==12.8.4.1
