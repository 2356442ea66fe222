# linear error reporting
index pypi 0 tags <inline>
#>=Pkg: foo 1.0.0
#>=Req: bar>=2.0.0,<3.0.0
#>=Pkg: bar 2.0.0
#>=Req: baz>=3.0.0,<4.0.0
#>=Pkg: baz 1.0.0
#>=Pkg: baz 3.0.0
require <inline>
#>foo>=1.0.0,<2.0.0
#>baz>=1.0.0,<2.0.0
result problem <inline>
#>problem Because every version of foo depends on bar>=2.0.0,<3.0.0 and every version of bar depends on baz>=3.0.0,<4.0.0, every version of foo requires baz 3.0.0.
#>problem And because req:1 requires foo>=1.0.0,<2.0.0 and req:2 requires baz>=1.0.0,<2.0.0, the requirements cannot be satisfied.
#>problem culprit req:1 foo<2.0.0,>=1.0.0
#>problem culprit req:2 baz<2.0.0,>=1.0.0
