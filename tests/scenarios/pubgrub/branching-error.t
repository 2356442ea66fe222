# branching error reporting
index pypi 0 tags <inline>
#>=Pkg: foo 1.0.0
#>=Req: a>=1.0.0,<2.0.0
#>=Req: b>=1.0.0,<2.0.0
#>=Pkg: foo 1.1.0
#>=Req: x>=1.0.0,<2.0.0
#>=Req: y>=1.0.0,<2.0.0
#>=Pkg: a 1.0.0
#>=Req: b>=2.0.0,<3.0.0
#>=Pkg: b 1.0.0
#>=Pkg: b 2.0.0
#>=Pkg: x 1.0.0
#>=Req: y>=2.0.0,<3.0.0
#>=Pkg: y 1.0.0
#>=Pkg: y 2.0.0
require <inline>
#>foo>=1.0.0,<2.0.0
result problem <inline>
#>problem Because every version of a depends on b>=2.0.0,<3.0.0 and foo 1.0.0 depends on a>=1.0.0,<2.0.0, foo 1.0.0 requires b 2.0.0.
#>problem And because foo 1.0.0 depends on b>=1.0.0,<2.0.0, foo 1.0.0 cannot be installed. (1)
#>problem
#>problem Because every version of x depends on y>=2.0.0,<3.0.0 and foo 1.1.0 depends on x>=1.0.0,<2.0.0, foo 1.1.0 requires y 2.0.0.
#>problem And because foo 1.1.0 depends on y>=1.0.0,<2.0.0, foo 1.1.0 cannot be installed.
#>problem And because foo 1.0.0 cannot be installed (1), no version of foo can be installed.
#>problem And because req:1 requires foo>=1.0.0,<2.0.0, the requirements cannot be satisfied.
#>problem culprit req:1 foo<2.0.0,>=1.0.0
