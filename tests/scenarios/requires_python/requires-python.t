# Requires-Python is tested against python_full_version
env python=3.10.14
index pypi 0 tags <inline>
#>=Pkg: numpy 2.2.6
#>=Pyr: >=3.10
#>=Pkg: numpy 2.3.4
#>=Pyr: >=3.11
#>=Pkg: scipy 1.16.0
#>=Pyr: >=3.11
#>=Req: numpy>=1.25.2
require <inline>
#>numpy
result solution <inline>
#>install numpy 2.2.6
next

require <inline>
#>scipy
result problem <inline>
#>problem Because req:1 requires scipy and every version of scipy requires Python >=3.11 (the target has 3.10.14), the requirements cannot be satisfied.
#>problem culprit req:1 scipy
next

env python=3.12.3
require <inline>
#>scipy
result solution <inline>
#>install numpy 2.3.4
#>install scipy 1.16.0
