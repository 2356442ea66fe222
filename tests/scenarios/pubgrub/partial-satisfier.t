# conflict resolution with a partial satisfier
index pypi 0 tags <inline>
#>=Pkg: foo 1.0.0
#>=Pkg: foo 1.1.0
#>=Req: left>=1.0.0,<2.0.0
#>=Req: right>=1.0.0,<2.0.0
#>=Pkg: left 1.0.0
#>=Req: shared>=1.0.0
#>=Pkg: right 1.0.0
#>=Req: shared<2.0.0
#>=Pkg: shared 2.0.0
#>=Pkg: shared 1.0.0
#>=Req: target>=1.0.0,<2.0.0
#>=Pkg: target 2.0.0
#>=Pkg: target 1.0.0
require <inline>
#>foo>=1.0.0,<2.0.0
#>target>=2.0.0,<3.0.0
result solution <inline>
#>install foo 1.0.0
#>install target 2.0.0
