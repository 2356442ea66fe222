# xformers release wheels pin torch exactly (pypi-facts 2.6); unpinned, the
# resolver walks back to the newest xformers whose pin the fixed torch meets.
env python=3.12.3
fixed torch 2.5.1+rocm6.1 ROCm build
index pypi 0 tags <inline>
#>=Pkg: xformers 0.0.28.post1
#>=Req: torch==2.4.1
#>=Req: numpy
#>=Pkg: xformers 0.0.28.post2
#>=Req: torch==2.5.0
#>=Req: numpy
#>=Pkg: xformers 0.0.28.post3
#>=Req: torch==2.5.1
#>=Req: numpy
#>=Pkg: xformers 0.0.29.post3
#>=Req: torch==2.6.0
#>=Req: numpy
#>=Pkg: xformers 0.0.30
#>=Req: torch==2.7.0
#>=Req: numpy
#>=Pkg: numpy 1.26.4
require <inline>
#>xformers
result solution <inline>
#>install numpy 1.26.4
#>keep torch 2.5.1+rocm6.1 @fixed
#>install xformers 0.0.28.post3
next

# nothing fits a torch that no xformers release pins
fixed torch 2.9.1+rocm7.2.0.lw.git7e1940d4 ROCm build
require <inline>
#>xformers
result solution,problem <inline>
#>problem Because xformers 0.0.28.post1 depends on torch==2.4.1 but torch is fixed at 2.9.1+rocm7.2.0.lw.git7e1940d4 (ROCm build) and xformers 0.0.28.post2 depends on torch==2.5.0 but torch is fixed at 2.9.1+rocm7.2.0.lw.git7e1940d4 (ROCm build), xformers <=0.0.28.post2 cannot be installed.
#>problem And because xformers 0.0.28.post3 depends on torch==2.5.1 but torch is fixed at 2.9.1+rocm7.2.0.lw.git7e1940d4 (ROCm build) and xformers 0.0.29.post3 depends on torch==2.6.0 but torch is fixed at 2.9.1+rocm7.2.0.lw.git7e1940d4 (ROCm build), xformers <=0.0.29.post3 cannot be installed.
#>problem And because req:1 requires xformers and xformers 0.0.30 depends on torch==2.7.0 but torch is fixed at 2.9.1+rocm7.2.0.lw.git7e1940d4 (ROCm build), the requirements cannot be satisfied.
#>problem culprit req:1 xformers
next

# the pin that downgraded torch in xformers#1052 is refused
require <inline>
#>xformers==0.0.30
result problem <inline>
#>problem Because req:1 requires xformers==0.0.30 and xformers 0.0.30 depends on torch==2.7.0 but torch is fixed at 2.5.1+rocm6.1 (ROCm build), the requirements cannot be satisfied.
#>problem culprit req:1 xformers==0.0.30
