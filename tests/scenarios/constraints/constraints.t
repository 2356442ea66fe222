# constraints (-c) narrow a package only when something brings it in
env python=3.12.3
fixed torch 2.9.1+rocm7.2.0.lw.git7e1940d4 ROCm build
index pypi 0 tags <inline>
#>=Pkg: numpy 1.26.4
#>=Pkg: numpy 2.3.4
#>=Pkg: pandas 2.3.3
#>=Req: numpy>=1.26.0
#>=Pkg: unrelated 1.0
require <inline>
#>pandas
constrain <inline>
#>numpy<2
#>unrelated==9.9
result solution <inline>
#>install numpy 1.26.4
#>install pandas 2.3.3
next

# a constraint against the fixed stack only bites when torch is in the graph
require <inline>
#>numpy
constrain <inline>
#>torch<2.9
result solution <inline>
#>install numpy 2.3.4
next

require <inline>
#>torch
constrain <inline>
#>torch<2.9
result problem <inline>
#>problem Because req:1 requires torch and every version of torch is excluded by the constraint torch<2.9 (constraint:1), the requirements cannot be satisfied.
#>problem culprit req:1 torch
