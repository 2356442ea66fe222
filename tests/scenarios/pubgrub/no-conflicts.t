# Dart pub's PubGrub walkthroughs (doc/solver.md), with PEP 440 ranges for
# the caret constraints
env python=3.12.3
index pypi 0 tags <inline>
#>=Pkg: foo 1.0.0
#>=Req: bar>=1.0.0,<2.0.0
#>=Pkg: bar 1.0.0
#>=Pkg: bar 2.0.0
# no conflicts
require <inline>
#>foo>=1.0.0,<2.0.0
result solution <inline>
#>install bar 1.0.0
#>install foo 1.0.0
