# The ROCm 7.2 image: torch is AMD's build and stays. torchvision pins torch
# exactly, with the local label stripped (pypi-facts 2.1).
env python=3.12.3 sys_platform=linux platform_system=Linux platform_machine=x86_64
fixed torch 2.9.1+rocm7.2.0.lw.git7e1940d4 ROCm build
index pypi 0 tags <inline>
#>=Pkg: torch 2.4.1
#>=Pkg: torch 2.9.1
#>=Req: nvidia-cublas-cu12==12.8.4.1; platform_system == "Linux"
#>=Pkg: torchvision 0.19.1
#>=Req: numpy
#>=Req: torch==2.4.1
#>=Req: pillow!=8.3.*,>=5.3.0
#>=Pkg: torchvision 0.24.0
#>=Req: numpy
#>=Req: torch==2.9.0
#>=Req: pillow!=8.3.*,>=5.3.0
#>=Pkg: torchvision 0.24.1
#>=Req: numpy
#>=Req: torch==2.9.1
#>=Req: pillow!=8.3.*,>=5.3.0
#>=Pkg: torchvision 0.25.0
#>=Req: numpy
#>=Req: torch==2.10.0
#>=Req: pillow!=8.3.*,>=5.3.0
#>=Pkg: numpy 2.1.3
#>=Pkg: numpy 2.3.4
#>=Pkg: pillow 8.3.1
#>=Pkg: pillow 11.3.0
installed freeze <inline>
#>numpy==2.1.3

# a pin that needs torch 2.4.1: impossible, and the derivation says why
require <inline>
#>torchvision==0.19.1
result solution,problem <inline>
#>problem Because req:1 requires torchvision==0.19.1 and torchvision 0.19.1 depends on torch==2.4.1 but torch is fixed at 2.9.1+rocm7.2.0.lw.git7e1940d4 (ROCm build), the requirements cannot be satisfied.
#>problem culprit req:1 torchvision==0.19.1
next

# unpinned: the newest torchvision whose exact torch pin the ROCm build meets
# (torch==2.9.1 matches 2.9.1+rocm7.2.0... because the local label is ignored)
require <inline>
#>torchvision
result solution,problem <inline>
#>keep numpy 2.1.3 @installed
#>install pillow 11.3.0
#>keep torch 2.9.1+rocm7.2.0.lw.git7e1940d4 @fixed
#>install torchvision 0.24.1
