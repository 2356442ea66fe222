# avoiding conflict during decision making
index pypi 0 tags <inline>
#>=Pkg: foo 1.0.0
#>=Pkg: foo 1.1.0
#>=Req: bar>=2.0.0,<3.0.0
#>=Pkg: bar 1.0.0
#>=Pkg: bar 1.1.0
#>=Pkg: bar 2.0.0
require <inline>
#>foo>=1.0.0,<2.0.0
#>bar>=1.0.0,<2.0.0
result solution <inline>
#>install bar 1.1.0
#>install foo 1.0.0
